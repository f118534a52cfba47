/**
 * A refusal in JSON-RPC's shape, the same on /mcp-http and through `engram mcp`: the envelope's
 * message as the error's message, and its `code`, `details`, `retryable` and `trace_id` as `data`,
 * so every SDK shows why (the TypeScript SDKs print the body of an HTTP error; Python's `mcp` 2.x
 * raises the JSON-RPC error it finds in it).
 */
import type { ServiceError } from '../errors';

export type RpcId = string | number | null;

/**
 * The JSON-RPC code of a refusal answered at the HTTP level (403, 429): the implementation-defined
 * server error. `data.code` says which rule refused, as the envelope's `code` does on REST.
 */
export const REFUSED = -32000;

/** The envelope's fields besides its message: what `data` carries. */
function refusalData(err: ServiceError, traceId: string) {
  return { code: err.code, details: err.details, retryable: err.retryable, trace_id: traceId };
}

/** A JSON-RPC error response with the request's id, `message` and `data` when given. */
export function rpcError(id: RpcId, code: number, message: string, data?: unknown) {
  return { jsonrpc: '2.0' as const, id, error: data === undefined ? { code, message } : { code, message, data } };
}

/** The body of a refusal the door answers with its HTTP status (403 a tool outside the grant, 429). */
export const refusalBody = (id: RpcId, err: ServiceError, traceId: string) =>
  rpcError(id, REFUSED, err.message, refusalData(err, traceId));

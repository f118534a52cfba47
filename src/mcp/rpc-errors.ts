/**
 * A refusal in JSON-RPC's shape, the same on /mcp-http and through `engram mcp`: the envelope's
 * message as the error's message, and its `code`, `details`, `retryable` and `trace_id` as `data`,
 * so every SDK shows why (the TypeScript SDKs print the body of an HTTP error; Python's `mcp` 2.x
 * raises the JSON-RPC error it finds in it).
 */
import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { type ErrorCode, refusalOf, ServiceError } from '../errors';
import type { Context } from '../operations/operation';

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

/** The JSON-RPC code of an error inside a request the SDK answers, by the envelope's code. */
const IN_BAND: Partial<Record<ErrorCode, number>> = {
  // What was asked for (a URI, a prompt or its argument) does not exist, may not be read, or is malformed.
  validation: ProtocolErrorCode.InvalidParams,
  unauthorized: ProtocolErrorCode.InvalidParams,
  not_found: ProtocolErrorCode.InvalidParams,
  internal: ProtocolErrorCode.InternalError,
};

/**
 * What an operation's failure inside resources/read or prompts/get becomes: its refusal, or, for
 * anything else, a generic internal error (logged with the trace id; no internals reach the
 * client), with the envelope's fields as `data` and `extra` beside them (a resource's uri).
 */
export function failureOf(ctx: Context, err: unknown, extra: Record<string, unknown> = {}): ProtocolError {
  let refusal = refusalOf(err);
  if (!refusal) {
    ctx.log.error('mcp request failed', { trace_id: ctx.traceId, error: String(err), stack: (err as Error).stack });
    refusal = INTERNAL;
  }
  const data = { ...extra, ...refusalData(refusal, ctx.traceId) };
  return new ProtocolError(IN_BAND[refusal.code] ?? REFUSED, refusal.message, data);
}

export const INTERNAL = new ServiceError(
  'internal',
  'Something went wrong on the server. Quote the trace_id when reporting it.',
);

/** ServiceError → the contract's error envelope `{code, message, details, retryable, trace_id}` (docs/protocol.md, "Errors"). */
import type { Context } from 'hono';
import type { AppEnv } from './app-env';
import type { ServiceError } from '../errors';

export function envelope(err: ServiceError, traceId: string) {
  return { code: err.code, message: err.message, details: err.details, retryable: err.retryable, trace_id: traceId };
}

export function errorResponse(c: Context<AppEnv>, err: ServiceError): Response {
  return c.json(envelope(err, c.get('traceId')), err.status);
}

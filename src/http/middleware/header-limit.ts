/**
 * The request header limit, answered in the envelope. Bun refuses headers over its parser's limit
 * with a bare 431 before the app runs (no hook sees it), so server.ts raises that limit to
 * PARSER_HEADER_BYTES and this refuses anything over MAX_HEADER_BYTES itself: only headers beyond
 * the parser's limit still get Bun's bare answer.
 */
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../../errors';

/** What the app accepts: Bun's own default, so every request Bun let through before still passes. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** What Bun's parser buffers before answering 431 itself: a bound on memory per connection. */
export const PARSER_HEADER_BYTES = 64 * 1024;

/** Refuses a request whose header fields exceed MAX_HEADER_BYTES with 431 `validation`. */
export function headerLimit(): MiddlewareHandler {
  return async (c, next) => {
    let size = 0;
    // As on the wire: `name: value\r\n`.
    c.req.raw.headers.forEach((value, name) => {
      size += name.length + value.length + 4;
    });
    if (size > MAX_HEADER_BYTES) {
      throw new ServiceError('validation', `The request headers are larger than ${MAX_HEADER_BYTES} bytes.`, { limit_bytes: MAX_HEADER_BYTES }, 431);
    }
    await next();
  };
}

/**
 * The limit on the request line and headers, answered in the envelope. Bun refuses headers over its parser's limit
 * with a bare 431 before the app runs (no hook sees it), so server.ts raises that limit to
 * PARSER_HEADER_BYTES and this refuses anything over MAX_HEADER_BYTES itself: only headers beyond
 * the parser's limit still get Bun's bare answer.
 */
import type { MiddlewareHandler } from 'hono';
import { ServiceError } from '../../errors';
import type { AppEnv } from '../app-env';

/** What the app accepts: Bun's own default, so every request Bun let through before still passes. */
const MAX_HEADER_BYTES = 16 * 1024;
/** What Bun's parser buffers before answering 431 itself: a bound on memory per connection. */
export const PARSER_HEADER_BYTES = 64 * 1024;

/** Refuses a request whose request line and header fields exceed MAX_HEADER_BYTES with 431 `validation`. */
export function headerLimit(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    // As on the wire, where Bun counts them together: `GET /path?query HTTP/1.1\r\n`, then `name: value\r\n` each.
    const url = new URL(c.req.url);
    let size = c.req.method.length + url.pathname.length + url.search.length + 11;
    c.req.raw.headers.forEach((value, name) => {
      size += name.length + value.length + 4;
    });
    if (size > MAX_HEADER_BYTES) {
      throw new ServiceError(
        'validation',
        `The request line and headers are larger than ${MAX_HEADER_BYTES} bytes.`,
        { limit_bytes: MAX_HEADER_BYTES },
        431,
      );
    }
    await next();
  };
}

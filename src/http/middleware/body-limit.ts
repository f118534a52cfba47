/** The largest request body any door reads, and the middleware that refuses a larger one with 422. */
import { bodyLimit } from 'hono/body-limit';
import { malformed } from '../../errors';
import { LIMITS } from '../../limits';

/**
 * 1 MiB of content can take several times that once escaped in JSON. The stdio bridge reads lines
 * up to the same size.
 */
export const MAX_BODY_BYTES = 8 * LIMITS.contentBytes;

export const requestBodyLimit = () =>
  bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw malformed(`The body is larger than ${MAX_BODY_BYTES} bytes.`, { limit_bytes: MAX_BODY_BYTES });
    },
  });

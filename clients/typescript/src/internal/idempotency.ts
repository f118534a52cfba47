/**
 * Idempotency keys of write methods: one per logical call, sent as `Idempotency-Key` on every
 * attempt of that call, so a retry after a lost answer is answered by the server from the first
 * attempt instead of writing twice.
 */

import { EngramError } from '../errors.js';
import type { WriteOptions } from '../types.js';

/** What the server accepts: 1 to 255 printable ASCII characters. */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** A module name held in a variable, so the build (which has no Node types) leaves it alone. */
const NODE_CRYPTO = 'node:crypto';

/**
 * The caller's own key when given (checked, so a bad one fails before anything is sent), else a
 * new random UUID. Throws EngramError for a key the server would refuse.
 */
export async function idempotencyKeyFor(options: WriteOptions | undefined): Promise<string> {
  const given = options?.idempotencyKey;
  if (given === undefined) return randomUUID();
  if (typeof given !== 'string' || !KEY_FORMAT.test(given)) {
    throw new EngramError('idempotencyKey must be 1 to 255 printable ASCII characters.');
  }
  return given;
}

async function randomUUID(): Promise<string> {
  const webCrypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  if (typeof webCrypto?.randomUUID === 'function') return webCrypto.randomUUID();
  // Node 18 keeps Web Crypto off the global object; its node:crypto has the same function.
  const nodeCrypto = (await import(NODE_CRYPTO)) as { randomUUID(): string };
  return nodeCrypto.randomUUID();
}

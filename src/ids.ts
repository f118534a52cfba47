/** Random identifiers and secrets, and the hashes under which secrets are stored. */
import { createHash, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `n` base62 characters from the system's CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const byte of crypto.getRandomValues(new Uint8Array(n * 2))) {
      if (byte < 248 && out.length < n) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const newId = (prefix: string): string => `${prefix}_${randomBase62(16)}`;

/** A request's (or a command's) trace id: sent back as X-Trace-Id and written in every log line of it. */
export const newTraceId = (): string => `tr_${randomBase62(20)}`;

export const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

/** Compares a presented secret with a stored SHA-256 hex digest in constant time. */
export function matchesHash(secret: string, storedHash: string): boolean {
  const a = Buffer.from(sha256(secret), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The only form of a secret ever shown after it is minted: first 8 and last 4 characters. */
export const hintOf = (secret: string): string => `${secret.slice(0, 8)}…${secret.slice(-4)}`;

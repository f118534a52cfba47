/**
 * A vector as every engine stores it: int8, one byte a dimension, scaled so its largest value is
 * ±127. Cosine similarity does not depend on a vector's length, so no scale is kept.
 */

export function quantize(v: Float32Array): Int8Array {
  let max = 0;
  for (let i = 0; i < v.length; i++) max = Math.max(max, Math.abs(v[i]!));
  const q = new Int8Array(v.length);
  if (max > 0) for (let i = 0; i < v.length; i++) q[i] = Math.round((v[i]! / max) * 127);
  return q;
}

/** A stored vector read back. */
export const int8Vector = (b: Uint8Array): Int8Array => new Int8Array(b.buffer, b.byteOffset, b.byteLength);

/** The stored form of a vector. */
export function storedVector(v: Float32Array): Uint8Array {
  const q = quantize(v);
  return new Uint8Array(q.buffer, q.byteOffset, q.byteLength);
}

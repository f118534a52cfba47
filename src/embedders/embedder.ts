/** Turning text into vectors, behind one small interface: the built-in model, or an HTTP endpoint. */
export interface Embedder {
  /** Names the model; a change of it means stored vectors must be made again. */
  readonly id: string;
  readonly dimensions: number;
  /**
   * Cosine similarity below which two texts are unrelated for this model (a search for something
   * the memory never heard of should not answer with its nearest strangers); 0 when unknown.
   */
  readonly similarityFloor?: number;
  /** One L2-normalized vector per text, in order. */
  embed(texts: string[]): Float32Array[] | Promise<Float32Array[]>;
  /** Lets go of what the embedder holds beyond memory (a thread); absent when nothing. */
  close?(): void | Promise<void>;
}

/** Scales to unit length, in place; a zero vector stays zero. */
export function normalizeInPlace(v: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < v.length; i++) v[i]! /= norm;
  return v;
}

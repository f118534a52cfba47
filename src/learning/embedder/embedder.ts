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

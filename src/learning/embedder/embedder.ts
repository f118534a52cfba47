/** Turning text into vectors, behind one small interface: the built-in model, or an HTTP endpoint. */
export interface Embedder {
  /** Names the model; a change of it means stored vectors must be made again. */
  readonly id: string;
  readonly dimensions: number;
  /** One L2-normalized vector per text, in order. */
  embed(texts: string[]): Float32Array[] | Promise<Float32Array[]>;
}

/**
 * An embedder known by id and dimensions at once, whose model is loaded by its first `embed`: a
 * thread starts without waiting for a transformer, and one with nothing to embed never holds it
 * (a loading ONNX session briefly takes some 100 MiB more than it keeps, so two threads loading
 * theirs at once would make the process's peak; docs/embedding-model.md).
 */
import type { Embedder } from './embedder';
import type { EmbedderIdentity } from './onnx-embedder';

export class DeferredEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor: number;
  private loaded: Promise<Embedder> | null = null;

  constructor(identity: EmbedderIdentity, private readonly load: () => Promise<Embedder>) {
    ({ id: this.id, dimensions: this.dimensions, similarityFloor: this.similarityFloor } = identity);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    // A load that failed is tried again by the next call (the learning loop backs off meanwhile).
    this.loaded ??= this.load().catch((err: unknown) => {
      this.loaded = null;
      throw err;
    });
    const embedder = await this.loaded;
    if (embedder.id !== this.id) throw new Error(`the model loaded as ${embedder.id}, not ${this.id}`);
    return embedder.embed(texts);
  }
}

/**
 * An embedder known by id and dimensions at once and usable once its model has loaded: a thread
 * starts without waiting hundreds of milliseconds for a transformer, and a first call waits for it.
 */
import type { Embedder } from './embedder';
import type { EmbedderIdentity } from './onnx-embedder';

export class DeferredEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor: number;

  constructor(identity: EmbedderIdentity, private readonly loading: Promise<Embedder>) {
    ({ id: this.id, dimensions: this.dimensions, similarityFloor: this.similarityFloor } = identity);
    // Seen by the caller's first `embed`, which rejects with it; not an unhandled rejection meanwhile.
    loading.catch(() => {});
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const embedder = await this.loading;
    if (embedder.id !== this.id) throw new Error(`the model loaded as ${embedder.id}, not ${this.id}`);
    return embedder.embed(texts);
  }
}

/**
 * An embedder known by id and dimensions at once, whose model is loaded by its first `embed`: a
 * thread starts without waiting for a transformer, and one with nothing to embed never holds it.
 * After a quiet spell (refinement caught up) the model is let go and loaded again by the next
 * `embed`. In the server, "loading" takes up the query thread's session (create-embedders.ts), so
 * letting go frees only this thread's tokenizer (~10 MiB); a model loaded on its own is ~130 MiB.
 */
import type { Embedder } from './embedder';
import type { EmbedderIdentity } from './onnx-embedder';

/**
 * Idle time after which the model is released: long enough that a trickle of new documents does not
 * reload it each time.
 */
const RELEASE_AFTER_MS = 60_000;

export class DeferredEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor: number;
  private loaded: Promise<Embedder> | null = null;
  private busy = 0;
  private idle: ReturnType<typeof setTimeout> | null = null;

  constructor(
    identity: EmbedderIdentity,
    private readonly load: () => Promise<Embedder>,
    private readonly releaseAfterMs = RELEASE_AFTER_MS,
  ) {
    ({ id: this.id, dimensions: this.dimensions, similarityFloor: this.similarityFloor } = identity);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.busy++;
    try {
      // A load that failed is tried again by the next call (the learning loop backs off meanwhile).
      this.loaded ??= this.load().catch((err: unknown) => {
        this.loaded = null;
        throw err;
      });
      const embedder = await this.loaded;
      if (embedder.id !== this.id) throw new Error(`the model loaded as ${embedder.id}, not ${this.id}`);
      return await embedder.embed(texts);
    } finally {
      if (--this.busy === 0 && this.loaded) this.idle = setTimeout(() => void this.release(), this.releaseAfterMs);
      // The timer alone must not keep the thread alive.
      (this.idle as { unref?: () => void } | null)?.unref?.();
    }
  }

  /** Whether the model is loaded (or loading) now. */
  get holdsModel(): boolean {
    return this.loaded !== null;
  }

  async close(): Promise<void> {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    await this.release();
  }

  private async release(): Promise<void> {
    const loaded = this.loaded;
    if (this.busy > 0 || !loaded) return;
    this.loaded = null;
    await (await loaded.catch(() => null))?.close?.();
  }
}

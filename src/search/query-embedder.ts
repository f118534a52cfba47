/**
 * The strong model for queries, on a thread of its own (query-embedder-worker.ts), behind the
 * Embedder interface: search awaits a vector while the HTTP thread goes on answering.
 */
import { Worker } from 'node:worker_threads';
import type { Embedder } from '../learning/embedder/embedder';
import { embeddedOnnxRuntime } from '../learning/embedder/onnx-runtime';

export type QueryRequest = { id: number; texts: string[] };
export type QueryReply = { id: number; vectors: Float32Array[] } | { id: number; error: string };
type Hello = { ready: { id: string; dimensions: number; similarityFloor?: number } } | { failed: string };

/** In a compiled binary the worker is an entrypoint of its own (scripts/build.ts); from a checkout it sits beside this file. */
const ENTRY = import.meta.url.includes('/$bunfs/') ? './src/search/query-embedder-worker.ts' : new URL('./query-embedder-worker.ts', import.meta.url);

export class QueryEmbedder implements Embedder {
  private readonly waiting = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  private next = 0;

  private constructor(
    private readonly worker: Worker,
    readonly id: string,
    readonly dimensions: number,
    readonly similarityFloor: number | undefined,
  ) {
    worker.on('message', (m: QueryReply) => {
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if ('vectors' in m) waiter?.resolve(m.vectors);
      else waiter?.reject(new Error(m.error));
    });
    // A thread that dies fails the queries it held; search goes on without this tier.
    worker.on('error', (err) => this.failAll(err as Error));
    worker.on('exit', () => this.failAll(new Error('the query embedder stopped')));
    worker.unref();
  }

  /** Starts the thread and resolves once its model is loaded. */
  static start(): Promise<QueryEmbedder> {
    const worker = new Worker(ENTRY, { workerData: { onnxRuntime: embeddedOnnxRuntime() } });
    return new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.once('message', (m: Hello) => {
        worker.off('error', reject);
        if ('failed' in m) {
          void worker.terminate();
          reject(new Error(`the strong model did not load: ${m.failed}`));
        } else {
          resolve(new QueryEmbedder(worker, m.ready.id, m.ready.dimensions, m.ready.similarityFloor));
        }
      });
    });
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts } satisfies QueryRequest);
    });
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }

  private failAll(err: Error): void {
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

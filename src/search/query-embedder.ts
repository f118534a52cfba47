/**
 * The strong model for queries, on a thread of its own (query-embedder-worker.ts), behind the
 * Embedder interface: search awaits a vector while the HTTP thread goes on answering. The thread
 * loads the model after the server has started; queries sent meanwhile wait in its port.
 */
import { Worker } from 'node:worker_threads';
import type { Embedder } from '../learning/embedder/embedder';
import type { EmbedderIdentity } from '../learning/embedder/onnx-embedder';
import { embeddedOnnxRuntime } from '../learning/embedder/onnx-runtime';

export type QueryRequest = { id: number; texts: string[] };
export type QueryReply = { id: number; vectors: Float32Array[] } | { id: number; error: string } | { ready: true };

/** In a compiled binary the worker is an entrypoint of its own (scripts/build.ts); from a checkout it sits beside this file. */
const ENTRY = import.meta.url.includes('/$bunfs/') ? './src/search/query-embedder-worker.ts' : new URL('./query-embedder-worker.ts', import.meta.url);

export class QueryEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor: number;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  private next = 0;
  private failure: Error | null = null;
  /** Settles once the thread has loaded its model, or has ended. */
  private readonly settled: Promise<void>;

  /** Starts the thread; it loads the model (identified by `identity`) on its own time. */
  constructor(identity: EmbedderIdentity) {
    ({ id: this.id, dimensions: this.dimensions, similarityFloor: this.similarityFloor } = identity);
    this.worker = new Worker(ENTRY, { workerData: { onnxRuntime: embeddedOnnxRuntime(), id: identity.id } });
    let settle = () => {};
    this.settled = new Promise((resolve) => { settle = resolve; });
    this.worker.on('message', (m: QueryReply) => {
      if ('ready' in m) return settle();
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if ('vectors' in m) waiter?.resolve(m.vectors);
      else waiter?.reject(new Error(m.error));
    });
    // A thread that dies fails the queries it held and every later one: search goes on without
    // this tier (and says so in the log).
    this.worker.on('error', (err) => this.fail(err as Error));
    this.worker.on('exit', () => {
      settle();
      this.fail(new Error('the query embedder stopped'));
    });
    this.worker.unref();
  }

  embed(texts: string[]): Promise<Float32Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.worker.postMessage({ id, texts } satisfies QueryRequest);
    });
  }

  /**
   * Ends the thread, once its model has loaded: ONNX Runtime aborts the whole process when the
   * thread it is loading a session for is torn down under it (a stop right after start).
   */
  async close(): Promise<void> {
    await this.settled;
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

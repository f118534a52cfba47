/**
 * The strong model for queries, on a thread of its own (query-embedder-thread.ts), behind the
 * Embedder interface: search awaits a vector while the HTTP thread goes on answering. The thread
 * loads the model after the server has started; queries sent meanwhile wait in its port. Its session
 * is the process's only one: `shared()` hands it to the learning thread, which refines with it.
 * Between queries the thread helps scan both tiers' indexes (`helpScans`, shared-scan.ts).
 */
import { Worker } from 'node:worker_threads';
import type { Embedder } from '../embedders/embedder';
import type { EmbedderIdentity, SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import { embeddedOnnxRuntime } from '../embedders/onnx-library';
import type { QueryReply, QueryRequest } from './query-messages';
import type { ScanShare } from './shared-scan';

/**
 * In a compiled binary the worker is an entrypoint of its own (scripts/build.ts); from a checkout
 * it sits beside this file.
 */
const ENTRY = import.meta.url.includes('/$bunfs/')
  ? './src/search/query-embedder-thread.ts'
  : new URL('./query-embedder-thread.ts', import.meta.url);

export class QueryEmbedder implements Embedder {
  readonly id: string;
  readonly dimensions: number;
  readonly similarityFloor: number;
  private readonly worker: Worker;
  private readonly waiting = new Map<number, { resolve(v: Float32Array[]): void; reject(e: Error): void }>();
  private next = 0;
  private failure: Error | null = null;
  /** Settles once the thread has loaded its model (with the model, shared), or has ended (null). */
  private readonly settled: Promise<SharedOnnxEmbedder | null>;
  private exited = false;

  /** Starts the thread; it loads the model (identified by `identity`) on its own time. */
  constructor(identity: EmbedderIdentity) {
    ({ id: this.id, dimensions: this.dimensions, similarityFloor: this.similarityFloor } = identity);
    this.worker = new Worker(ENTRY, { workerData: { onnxRuntime: embeddedOnnxRuntime(), id: identity.id } });
    let settle = (_shared: SharedOnnxEmbedder | null) => {};
    this.settled = new Promise((resolve) => {
      settle = resolve;
    });
    this.worker.on('message', (m: QueryReply) => {
      if ('ready' in m) return settle(m.ready);
      if ('closed' in m) return;
      const waiter = this.waiting.get(m.id);
      this.waiting.delete(m.id);
      if ('vectors' in m) waiter?.resolve(m.vectors);
      else waiter?.reject(new Error(m.error));
    });
    // A thread that dies fails the queries it held and every later one: search goes on without
    // this tier (and says so in the log).
    this.worker.on('error', (err) => this.fail(err as Error));
    this.worker.on('exit', () => {
      this.exited = true;
      settle(null);
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

  /** Has the thread take part in the index's scans whenever it is idle. */
  helpScans(share: ScanShare): void {
    this.worker.postMessage({ scans: share } satisfies QueryRequest);
  }

  /**
   * The loaded model, for another thread to run (OnnxEmbedder.attach); rejects if the thread ended
   * before loading it.
   */
  async shared(): Promise<SharedOnnxEmbedder> {
    const shared = await this.settled;
    if (!shared) throw this.failure ?? new Error('the query embedder stopped');
    return shared;
  }

  /**
   * Frees the model and ends the thread, once the model has loaded: ONNX Runtime aborts the whole
   * process when the thread it is loading a session for is torn down under it (a stop right after
   * start). Every other thread running the shared model must have stopped first. The thread keeps
   * the process alive meanwhile: by then nothing else may, and the process would end mid-stop.
   */
  async close(): Promise<void> {
    this.worker.ref();
    if ((await this.settled) && !this.exited) {
      const closed = new Promise<void>((resolve) => {
        this.worker.on('message', (m: QueryReply) => 'closed' in m && resolve());
        this.worker.once('exit', () => resolve());
      });
      this.worker.postMessage({ close: true } satisfies QueryRequest);
      await closed;
    }
    await this.worker.terminate();
  }

  private fail(err: Error): void {
    this.failure ??= err;
    for (const w of this.waiting.values()) w.reject(err);
    this.waiting.clear();
  }
}

/**
 * The HTTP thread's handle on the learning thread (learning-thread.ts, which runs the runner loop),
 * and its supervisor: a thread that dies is logged and started again after a pause that doubles
 * while it keeps dying, so a fault in learning never takes the server down.
 */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config';
import type { Logger } from '../log';
import type { VectorTier } from '../storage/store';
import { vectorExtensionFile } from '../storage/sqlite/vectors';
import type { EmbedderIdentity, SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import { embeddedOnnxRuntime } from '../embedders/onnx-library';
import type { FromWorker, ToWorker, WorkerData } from './thread-messages';

/** What the server needs of learning, whether it runs in a worker or (in tests) in process. */
export interface Learning {
  /** A job was queued. */
  notify(): void;
  /** Works every ready job, resolving with how many were taken. */
  drain(): Promise<number>;
  /** Finishes the current step and stops. */
  stop(): Promise<void>;
}

/**
 * In a compiled binary the thread's code is a second entrypoint, addressed from the entrypoints' common
 * root (the checkout, see scripts/build.ts); from a checkout it sits beside this file.
 */
const THREAD_ENTRY = import.meta.url.includes('/$bunfs/')
  ? './src/learning/learning-thread.ts'
  : new URL('./learning-thread.ts', import.meta.url);

/** The pause before starting a dead worker again; it doubles with each death in a row, up to the cap. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;
/** A worker that learned this long before dying was healthy: the next pause is the first one again. */
const HEALTHY_MS = 60_000;

type Drain = { resolve(jobs: number): void; reject(err: Error): void };

/**
 * What refinement (the strong tier's pass over learned passages) is handed: the model's identity,
 * the query thread's loaded model, and the searches to yield to.
 */
export interface StrongTierSource {
  /** The identity the HTTP thread computed (see createEmbedders). */
  strongIdentity: EmbedderIdentity | null;
  /** The query thread's model once loaded, for refinement to run (each worker gets it when ready). */
  strongModel: (() => Promise<SharedOnnxEmbedder>) | null;
  /** The search engine's record of searches in flight (search/search-activity.ts). */
  searches: SharedArrayBuffer;
}

export class LearningSupervisor implements Learning {
  private worker: Worker | null = null;
  /** Drains asked for and not yet answered; sent again to a restarted worker. */
  private readonly drains = new Map<number, Drain>();
  private nextId = 0;
  private stopped: Promise<void> | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  /** Deaths in a row, and the pause before the next start. */
  private deaths = 0;
  private pauseMs = 0;
  /** When the running worker became ready; 0 while none is. */
  private readyAt = 0;
  /** The search index taking the passages the worker reported, one report after another. */
  private indexing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly config: Config,
    private readonly onIndexed: (tier: VectorTier, passageIds: number[]) => void | Promise<void>,
    private readonly log: Logger,
    private readonly strongTier: StrongTierSource,
  ) {}

  /**
   * Starts the worker and resolves once it has opened the store and is learning. A first worker
   * that fails to start rejects (the server does not start on a broken set-up); from then on the
   * worker is supervised.
   */
  static async start(
    config: Config,
    onIndexed: (tier: VectorTier, passageIds: number[]) => void | Promise<void>,
    log: Logger,
    strongTier: StrongTierSource,
  ): Promise<LearningSupervisor> {
    const handle = new LearningSupervisor(config, onIndexed, log, strongTier);
    await handle.launch();
    return handle;
  }

  notify(): void {
    this.send({ type: 'wake' });
  }

  drain(): Promise<number> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.drains.set(id, { resolve, reject });
      this.send({ type: 'drain', id });
    });
  }

  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      if (this.restartTimer) clearTimeout(this.restartTimer);
      const worker = this.worker;
      if (!worker) return resolve();
      // Resolves on exit, whether the worker stopped as asked or died on the way.
      worker.once('exit', () => resolve());
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'stopped') void worker.terminate();
      });
      worker.postMessage({ type: 'stop' } satisfies ToWorker);
    });
    return this.stopped;
  }

  /** Starts a worker thread; resolves once it is ready, rejects if it dies before. */
  private launch(): Promise<void> {
    const { strongIdentity, strongModel, searches } = this.strongTier;
    const workerData: WorkerData = {
      config: this.config,
      vectorExtension: vectorExtensionFile(),
      onnxRuntime: embeddedOnnxRuntime(),
      restarted: this.deaths > 0,
      strongIdentity,
      sharedStrong: strongModel !== null,
      searches,
    };
    const worker = new Worker(THREAD_ENTRY, { workerData });
    this.worker = worker;
    return new Promise((resolve, reject) => {
      let ready = false;
      let fault: unknown = null;
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          ready = true;
          this.readyAt = Date.now();
          resolve();
          for (const id of this.drains.keys()) worker.postMessage({ type: 'drain', id } satisfies ToWorker);
          strongModel?.().then(
            (shared) =>
              this.worker === worker && worker.postMessage({ type: 'strong-model', shared } satisfies ToWorker),
            (err) =>
              this.worker === worker &&
              worker.postMessage({ type: 'strong-model', error: String(err) } satisfies ToWorker),
          );
        }
        if (m.type === 'indexed') {
          const { tier, passageIds } = m;
          this.indexing = this.indexing
            .then(() => this.onIndexed(tier, passageIds))
            .catch((err) => {
              this.log.error('passages learned could not be indexed for search', {
                tier,
                passages: passageIds.length,
                error: String(err),
              });
            });
        }
        if (m.type === 'drained') {
          const drain = this.drains.get(m.id);
          this.drains.delete(m.id);
          // Once what the drain learned is searchable: its passages were reported before it ended.
          if ('error' in m) drain?.reject(new Error(m.error));
          else void this.indexing.then(() => drain?.resolve(m.jobs));
        }
      });
      // Listened to for the worker's whole life: an error thrown in a thread nobody listens to is
      // thrown again on this one, and would end the process.
      worker.on('error', (err) => {
        fault = err;
      });
      worker.on('exit', (code) => {
        this.worker = null;
        if (this.stopped) return;
        const error = fault ?? new Error(`the learning worker exited with code ${code}`);
        if (!ready) reject(error);
        if (ready || this.deaths > 0) this.restartLater(error, code);
      });
    });
  }

  private restartLater(error: unknown, code: number): void {
    const healthy = this.readyAt > 0 && Date.now() - this.readyAt >= HEALTHY_MS;
    this.pauseMs = healthy || this.pauseMs === 0 ? RESTART_FIRST_MS : Math.min(RESTART_MAX_MS, this.pauseMs * 2);
    this.deaths = healthy ? 1 : this.deaths + 1;
    this.readyAt = 0;
    this.log.error('the learning worker died; it starts again after a pause', {
      error: String(error),
      exit_code: code,
      deaths_in_a_row: this.deaths,
      restart_in_ms: this.pauseMs,
    });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.launch().then(
        () => this.log.info('the learning worker started again', { deaths_in_a_row: this.deaths }),
        () => {}, // its exit was logged and the next start planned
      );
    }, this.pauseMs);
  }

  /** Drops the message while no worker runs: a restarted worker looks at the queue first anyway. */
  private send(message: ToWorker): void {
    this.worker?.postMessage(message);
  }
}

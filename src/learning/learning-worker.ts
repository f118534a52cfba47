/** The HTTP thread's handle on the learning worker thread. */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config';
import type { VectorTier } from '../storage/store';
import { vectorExtensionFile } from '../storage/sqlite/vectors';
import type { FromWorker, ToWorker } from './worker-messages';

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
 * In a compiled binary the worker is a second entrypoint, addressed from the entrypoints' common
 * root (the checkout, see scripts/build.ts); from a checkout it sits beside this file.
 */
const WORKER_ENTRY = import.meta.url.includes('/$bunfs/') ? './src/learning/worker.ts' : new URL('./worker.ts', import.meta.url);

export class LearningWorker implements Learning {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (jobs: number) => void>();
  private nextId = 0;
  private stopped: Promise<void> | null = null;

  private constructor(worker: Worker, private readonly onIndexed: (tier: VectorTier, passageIds: number[]) => void) {
    this.worker = worker;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'indexed') this.onIndexed(m.tier, m.passageIds);
      if (m.type === 'drained') this.waiting.get(m.id)?.(m.jobs);
    });
  }

  /** Starts the worker and resolves once it has opened the store and is learning. */
  static start(config: Config, onIndexed: (tier: VectorTier, passageIds: number[]) => void): Promise<LearningWorker> {
    const worker = new Worker(WORKER_ENTRY, { workerData: { config, vectorExtension: vectorExtensionFile() } });
    const handle = new LearningWorker(worker, onIndexed);
    return new Promise((resolve, reject) => {
      worker.once('error', reject);
      worker.on('message', (m: FromWorker) => {
        if (m.type === 'ready') {
          worker.off('error', reject);
          resolve(handle);
        }
      });
    });
  }

  notify(): void {
    this.send({ type: 'wake' });
  }

  drain(): Promise<number> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.waiting.set(id, (jobs) => {
        this.waiting.delete(id);
        resolve(jobs);
      });
      this.send({ type: 'drain', id });
    });
  }

  stop(): Promise<void> {
    this.stopped ??= new Promise<void>((resolve) => {
      this.worker.on('message', (m: FromWorker) => {
        if (m.type === 'stopped') void this.worker.terminate().then(() => resolve());
      });
      this.send({ type: 'stop' });
    });
    return this.stopped;
  }

  private send(message: ToWorker): void {
    this.worker.postMessage(message);
  }
}

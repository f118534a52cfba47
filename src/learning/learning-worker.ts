/** The HTTP thread's handle on the learning worker thread. */
import { Worker } from 'node:worker_threads';
import type { Config } from '../config';
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

export class LearningWorker implements Learning {
  private readonly worker: Worker;
  private readonly waiting = new Map<number, (jobs: number) => void>();
  private nextId = 0;
  private stopped: Promise<void> | null = null;

  private constructor(worker: Worker, private readonly onIndexed: (passageIds: number[]) => void) {
    this.worker = worker;
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'indexed') this.onIndexed(m.passageIds);
      if (m.type === 'drained') this.waiting.get(m.id)?.(m.jobs);
    });
  }

  /** Starts the worker and resolves once it has opened the store and is learning. */
  static start(config: Config, onIndexed: (passageIds: number[]) => void): Promise<LearningWorker> {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { workerData: { config } });
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

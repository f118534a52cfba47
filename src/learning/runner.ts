/**
 * The learning loop: claim a job from the durable queue, learn its document, commit the passages
 * and the `learned` state together; on failure, back off and retry, then fail for good with the
 * reason shown on the document. A job left running by a stopped server is claimed again at start.
 */
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { LearningJob, Store } from '../storage/store';
import { splitPassages } from './passages';

const MAX_ATTEMPTS = 5;
const IDLE_POLL_MS = 1000;

/** Thrown by a learning step for a document that can never be learned (no retry). */
export class PermanentLearningError extends Error {}

export class LearningRunner {
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;

  constructor(private readonly store: Store, private readonly clock: Clock, private readonly log: Logger) {}

  start(): void {
    const requeued = this.store.requeueRunningJobs(this.clock.now());
    if (requeued) this.log.info('learning resumed jobs left running', { jobs: requeued });
    this.running = true;
    this.loop = this.work();
  }

  /** Tells an idle loop that a job was queued. */
  notify(): void {
    this.wake?.();
  }

  /** Finishes the current step, then stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await this.loop;
  }

  /** Works every ready job; returns how many it took. Tests call this to step the queue. */
  async drain(): Promise<number> {
    let n = 0;
    for (let job = this.store.claimJob(this.clock.now()); job; job = this.store.claimJob(this.clock.now())) {
      await this.runJob(job);
      n++;
      if (!this.running && this.loop) break;
    }
    return n;
  }

  private async work(): Promise<void> {
    while (this.running) {
      if ((await this.drain()) === 0 && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, IDLE_POLL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  private async runJob(job: LearningJob): Promise<void> {
    try {
      const doc = job.documentId ? this.store.getDocument(job.accountId, job.documentId) : null;
      if (!doc) {
        this.store.completeDocument(job, [], this.clock.now()); // deleted while queued: nothing to learn
        return;
      }
      if (doc.url != null) throw new PermanentLearningError('Reading documents from a URL is not available in this version yet.');
      this.store.completeDocument(job, splitPassages(doc.content ?? '', doc.title), this.clock.now());
    } catch (err) {
      const permanent = err instanceof PermanentLearningError || job.attempts >= MAX_ATTEMPTS;
      const retryAt = permanent ? null : this.clock.now() + 1000 * 2 ** job.attempts;
      this.log.warn('learning step failed', { job: job.id, document: job.documentId, permanent, error: String(err) });
      this.store.failJob(job, err instanceof Error ? err.message : String(err), retryAt, this.clock.now());
    }
  }
}

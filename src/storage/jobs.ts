/** The learning queue: jobs are rows in the same store, enqueued in the same write as their document or fact. */
import type { PassageInput } from './passages';

export type JobKind = 'learn_document' | 'embed_memory' | 'reembed';

export interface LearningJob {
  id: number;
  /** Null for work of the whole server (re-embedding). */
  accountId: string | null;
  kind: JobKind;
  documentId: string | null;
  memoryId: string | null;
  attempts: number;
  /**
   * A learn_document job that rebuilds a document learned elsewhere (see `DocumentLearning`):
   * passages and vectors only, no fact extraction, and the document keeps its times.
   */
  rebuild: boolean;
}

export interface JobRepository {
  /** Takes up to `limit` of the oldest ready jobs and marks them running, in one transaction. */
  claimJobs(now: number, limit: number): LearningJob[];
  /**
   * Stores a document's passages (and their vectors, when an embedder runs), marks it learned and
   * its job done, all in one transaction. Returns the new passages' ids.
   */
  completeDocument(job: LearningJob, passages: PassageInput[], vectors: Float32Array[][] | null, now: number): number[];
  /** Marks a job done with nothing to store. */
  completeJob(job: LearningJob, now: number): void;
  /** Records a failure: the job retries after `retryAt`, or with null fails for good with the document. */
  failJob(job: LearningJob, error: string, retryAt: number | null, now: number): void;
  /** Puts jobs left running by a stopped server back in the queue. */
  requeueRunningJobs(now: number): number;
  /** Puts claimed jobs that were never started back in the queue, their claim not counted as an attempt. */
  releaseJobs(jobs: LearningJob[], now: number): void;
  /** Whether a job of this kind is queued or running (a re-embedding, say). */
  hasPendingJob(kind: JobKind): boolean;
  /** Jobs queued or running, every account together (a progress figure, no account data). */
  countPendingJobs(): number;
}

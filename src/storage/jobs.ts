/**
 * The learning queue: jobs are rows in the same store, enqueued in the same transaction as their
 * document or fact. What a job is queued with and what its end writes elsewhere (the document
 * learned, its passages) is src/learning/queue.ts's; this repository writes job rows only.
 */

export type JobKind = 'learn_document' | 'embed_memory' | 'reembed' | 'extract_facts';

/**
 * Who takes which jobs: `index`, the jobs that make what was written searchable (the learning
 * runner), never behind a model; `facts`, learned documents' facts, which wait on the language model
 * (src/learning/fact-lane.ts).
 */
export type JobLane = 'index' | 'facts';

export const LANE_KINDS: Record<JobLane, JobKind[]> = {
  index: ['learn_document', 'embed_memory', 'reembed'],
  facts: ['extract_facts'],
};

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
  /** Queued by an import: claimed after every ready job of what was added by hand. */
  bulk: boolean;
}

/** What a job is queued for: a document to learn, a fact to embed, or the whole server's re-embedding. */
export interface NewJob {
  /** Null for work of the whole server (re-embedding). */
  accountId: string | null;
  kind: JobKind;
  documentId?: string;
  memoryId?: string;
  /** See `LearningJob.rebuild`. */
  rebuild?: boolean;
  /** See `LearningJob.bulk`. */
  bulk?: boolean;
}

/**
 * How long a claim holds a job: a learner that dies mid-job (kill -9, a lost machine) holds it no
 * longer, and another learner takes it when the lease ends. A learner working a job for longer
 * renews its lease (`renew`).
 */
export const JOB_LEASE_MS = 120_000;

/** The order a claim returns its jobs in: those added by hand first, then as queued. */
export const claimOrder = (a: LearningJob, b: LearningJob): number => Number(a.bulk) - Number(b.bulk) || a.id - b.id;

export interface JobRepository {
  /** Queues a job, ready from `at`. */
  enqueue(job: NewJob, at: number): Promise<void>;
  /**
   * Takes up to `limit` of the oldest ready jobs of `lane` (every job when absent), those added by
   * hand before bulk ones, and marks them running under a lease until `now + leaseMs`, at once: two
   * claims, from any connection or process, never take the same job while its lease holds. A
   * running job whose lease has ended (its learner died) is ready again, and its claim counts as a
   * new attempt. Returned in the order claimed.
   */
  claim(now: number, limit: number, leaseMs?: number, lane?: JobLane): Promise<LearningJob[]>;
  /**
   * Extends the leases of jobs this learner still holds to `now + leaseMs`; returns the ids of
   * those it still held (a job whose lease ended and that another learner took is not among them).
   */
  renew(jobs: LearningJob[], now: number, leaseMs?: number): Promise<number[]>;
  /** Marks a job done. */
  complete(job: LearningJob, now: number): Promise<void>;
  /** Records a failure on the job: it retries after `retryAt`, or with null fails for good. */
  fail(job: LearningJob, error: string, retryAt: number | null, now: number): Promise<void>;
  /**
   * Puts every running job back in the queue, leases or not: only for a process that owns the
   * store alone (SQLite's server at start, its learning thread restarted). Where several learners
   * share a store, their leases do this.
   */
  requeueRunning(now: number): Promise<number>;
  /** Puts claimed jobs that were never started back in the queue, their claim not counted as an attempt. */
  release(jobs: LearningJob[], now: number): Promise<void>;
  /** Whether a job of this kind is queued or running (a re-embedding, say). */
  hasPending(kind: JobKind): Promise<boolean>;
  /** Jobs of `lane` (every job when absent) queued or running, every account together (a progress figure, no account data). */
  countPending(lane?: JobLane): Promise<number>;
  /** Jobs of `lane` failed for good, every account together. */
  countFailed(lane: JobLane): Promise<number>;
}

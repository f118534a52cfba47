/**
 * The learning loop: claim a job from the durable queue, do it, and commit its result and the
 * job's end together. A failure backs off and retries, then fails for good with the reason shown
 * on the document. A job left running by a stopped server is queued again at the next start (see
 * server.ts), and redoing it replaces what the interrupted attempt wrote, so nothing is learned twice.
 * With a language model, the fact lane (fact-lane.ts) runs beside the loop: documents' facts come
 * after they are searchable, never before.
 */
import type { FactExtractor } from './fact-extractor';
import { FactLane } from './fact-lane';
import { renewWhileWorking } from './lease-renewal';
import type { Clock } from '../clock';
import { collectGarbageSoon } from '../collect-garbage-soon';
import { isStorageFull } from '../errors';
import type { Logger } from '../log';
import type { LearningJob, Store, Transaction, VectorTier } from '../storage/store';
import { JOB_LEASE_MS } from '../storage/jobs';
import type { Embedder } from '../embedders/embedder';
import { embedPassages } from './embedding-units';
import { splitPassages } from './split-passages';
import { completeDocument, failJob } from './queue';
import { Refiner } from './refiner';

const MAX_ATTEMPTS = 5;
const IDLE_POLL_MS = 1000;
/** The loop's pause after a failed round (a full disk); it doubles while rounds keep failing, up to the cap. */
const PAUSE_FIRST_MS = 1000;
const PAUSE_MAX_MS = 30_000;
const REEMBED_BATCH = 256;
/** Jobs claimed and committed together. */
const BATCH = 32;

/** Writes a prepared job's result in the transaction given; returns the ids of passages that got vectors. */
type Commit = (tx: Transaction) => Promise<number[]>;

/** A failure that retrying cannot mend (a refused address, a page that is not text). */
class PermanentLearningError extends Error {}

export interface LearningDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  /** The fast tier, which makes a document searchable as it is learned. Null: keyword-only search, nothing to embed. */
  embedder: Embedder | null;
  /** The strong tier, which refines learned passages while the queue is empty; null: none. */
  strong?: Embedder | null;
  /** Reads a URL document's text; throws an error with `permanent: true` when retrying cannot help. */
  readUrl(url: string): Promise<{ text: string; title: string | null }>;
  /** Called with the ids of passages whose vectors of a tier were just stored; awaited when it returns a promise. */
  onIndexed(tier: VectorTier, passageIds: number[]): void | Promise<void>;
  /**
   * Picks the facts out of learned documents, in the fact lane; absent or null without a model
   * (learning indexes, and queues no facts).
   */
  extractor?: FactExtractor | null;
  /**
   * One short batch of store upkeep (the keyword index rebuild, storage/sqlite/fts-rebuild.ts); true
   * while more remains.
   */
  upkeep?: () => Promise<boolean>;
  /** How long a claim holds its jobs (JOB_LEASE_MS unless told); renewed while they are worked. */
  leaseMs?: number;
  /** The containers searched lately, most recent first: refinement takes their passages first. */
  searched?: () => string[];
}

export class LearningRunner {
  private running = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> | null = null;
  private readonly refiner: Refiner | null;
  private readonly facts: FactLane | null;
  /** Claimed jobs whose end the store would not take (see `strand`), and the error it gave. */
  private stranded: LearningJob[] = [];
  private strandedBy: unknown = null;

  constructor(private readonly deps: LearningDeps) {
    this.refiner = deps.strong
      ? new Refiner(deps.store, deps.strong, (ids) => deps.onIndexed('strong', ids), { containersFirst: deps.searched })
      : null;
    this.facts = deps.extractor
      ? new FactLane({ ...deps, extractor: deps.extractor, leaseMs: deps.leaseMs ?? JOB_LEASE_MS })
      : null;
  }

  start(): void {
    this.running = true;
    this.loop = this.work();
    this.facts?.start();
  }

  /** Tells an idle loop that a job was queued. */
  notify(): void {
    this.wake?.();
  }

  /**
   * Finishes the job at hand (its batch's other jobs go back to the queue), then stops; the fact
   * lane gives its jobs back at once rather than wait for the model.
   */
  async stop(): Promise<void> {
    this.running = false;
    this.notify();
    await Promise.all([this.loop, this.facts?.stop()]);
  }

  /**
   * Works every ready job, facts too (until the model does not answer); returns how many it took.
   * Tests call this to step the queue.
   */
  async drain(): Promise<number> {
    let n = 0;
    for (;;) {
      // Facts in a container queue their embedding: index again after them.
      const taken = (await this.drainIndex()) + ((await this.facts?.drain()) ?? 0);
      if (taken === 0) return n;
      n += taken;
    }
  }

  /** Works every ready job that indexes; returns how many it took. */
  private async drainIndex(): Promise<number> {
    const { store, clock } = this.deps;
    await this.giveBackStranded();
    let n = 0;
    for (
      let batch = await store.jobs.claim(clock.now(), BATCH, this.leaseMs, 'index');
      batch.length;
      batch = await store.jobs.claim(clock.now(), BATCH, this.leaseMs, 'index')
    ) {
      await this.runBatch(batch);
      n += batch.length;
      // The store would not take a job's end: claim nothing more until it does.
      if (this.strandedBy) throw this.strandedBy;
      if (this.stopping) break;
    }
    return n;
  }

  /** A started loop asked to stop; `drain` called by a test has no loop and always runs to the end. */
  private get stopping(): boolean {
    return this.loop !== null && !this.running;
  }

  /**
   * Rounds until stopped. A round that throws (a full disk refuses the claim, a job's end or the
   * upkeep; or a fault of ours) loses nothing (see `strand`): the loop pauses, longer while rounds
   * keep failing, and tries again. A queued job ends a pause early, as its write got through.
   */
  private async work(): Promise<void> {
    let pauseMs = 0;
    let pausedAt = 0;
    while (this.running) {
      let busy = false;
      try {
        busy = await this.round();
        if (busy) collectGarbageSoon();
        if (pauseMs) this.deps.log.info('learning resumed', { paused_ms: this.deps.clock.now() - pausedAt });
        pauseMs = 0;
      } catch (err) {
        if (!pauseMs) pausedAt = this.deps.clock.now();
        pauseMs = Math.min(PAUSE_MAX_MS, pauseMs * 2 || PAUSE_FIRST_MS);
        if (isStorageFull(err)) this.deps.log.warn('learning paused: the storage is full', { retry_in_ms: pauseMs });
        else
          this.deps.log.error('learning paused after a failure', {
            error: String(err),
            stack: (err as Error).stack,
            retry_in_ms: pauseMs,
          });
      }
      if (!busy && this.running) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pauseMs || IDLE_POLL_MS);
          this.wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        this.wake = null;
      }
    }
  }

  /** Upkeep, then the ready jobs, or else refinement; true when the round found work. */
  private async round(): Promise<boolean> {
    const upkept = await this.upkeep();
    // Refinement runs only when no job is ready, one small batch at a time, so new work waits
    // for at most one batch.
    if ((await this.drainIndex()) > 0 || !this.running || upkept) return true;
    if (!this.refiner || (await this.refiner.step()) === 0) return false;
    // The model runs synchronously: yield to the thread's messages (stop, wake) before the next batch.
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  }

  /**
   * One batch of store upkeep a round, before the round's jobs (so it starts at start, and a busy
   * queue slows it but cannot stop it) and instead of refinement; false when there is none.
   */
  private async upkeep(): Promise<boolean> {
    if (!this.running || !(await this.deps.upkeep?.())) return false;
    // A batch is synchronous: yield to the thread's messages (stop, wake) before the next one.
    await new Promise((resolve) => setImmediate(resolve));
    return true;
  }

  /**
   * Does the slow part of every job (fetching, embedding) first, then commits their results in
   * one transaction: one disk flush for the batch instead of one a document. Should that commit
   * fail, each job's result is committed on its own, so one bad job cannot hold back the others.
   * When the server stops, the job at hand finishes and the batch's unstarted jobs are released, so
   * a shutdown waits for one job's fetch or model call, not a whole batch's.
   */
  private async runBatch(jobs: LearningJob[]): Promise<void> {
    const renewal = renewWhileWorking(this.deps.store, this.deps.clock, jobs, this.leaseMs);
    try {
      await this.workBatch(jobs);
    } finally {
      clearInterval(renewal);
    }
  }

  private get leaseMs(): number {
    return this.deps.leaseMs ?? JOB_LEASE_MS;
  }

  private async workBatch(jobs: LearningJob[]): Promise<void> {
    const ready: { job: LearningJob; commit: Commit }[] = [];
    const unstarted: LearningJob[] = [];
    for (const job of jobs) {
      if (this.stopping) {
        unstarted.push(job);
        continue;
      }
      try {
        ready.push({ job, commit: await this.prepare(job) });
      } catch (err) {
        await this.fail(job, err);
      }
    }
    const { store } = this.deps;
    let indexed: number[] = [];
    try {
      indexed = await store.transaction(async (tx) => {
        const ids: number[] = [];
        for (const { commit } of ready) ids.push(...(await commit(tx)));
        return ids;
      });
    } catch {
      for (const { job, commit } of ready) {
        try {
          indexed.push(...(await store.transaction(commit)));
        } catch (err) {
          await this.fail(job, err);
        }
      }
    }
    try {
      if (unstarted.length) await store.jobs.release(unstarted, this.deps.clock.now());
    } catch (err) {
      for (const job of unstarted) this.strand(job, err);
    }
    if (indexed.length) await this.deps.onIndexed('fast', indexed);
    this.facts?.notify();
  }

  private prepare(job: LearningJob): Promise<Commit> {
    if (job.kind === 'learn_document') return this.learnDocument(job);
    if (job.kind === 'embed_memory') return this.embedMemory(job);
    return this.reembed(job);
  }

  /**
   * Records a job's failure: queued again after a backoff, or failed for good. A full disk is not
   * the job's failure, and a failure the store will not record is not recorded: either way the
   * job is stranded instead.
   */
  private async fail(job: LearningJob, err: unknown): Promise<void> {
    const { store, clock, log } = this.deps;
    if (isStorageFull(err)) {
      this.strand(job, err);
      return;
    }
    const permanent =
      (err as { permanent?: boolean }).permanent === true ||
      err instanceof PermanentLearningError ||
      job.attempts >= MAX_ATTEMPTS;
    const retryAt = permanent ? null : clock.now() + 1000 * 2 ** job.attempts;
    log.warn('learning step failed', {
      job: job.id,
      kind: job.kind,
      document: job.documentId,
      permanent,
      error: String(err),
    });
    try {
      await failJob(store, job, err instanceof Error ? err.message : String(err), retryAt, clock.now());
    } catch (writeErr) {
      this.strand(job, writeErr);
    }
  }

  /**
   * Keeps a claimed job whose end the store refused to write. It stays marked running in the
   * store (a restart would queue it again), and `drain` gives it back to the queue, its attempt
   * uncharged, once the store takes writes again.
   */
  private strand(job: LearningJob, err: unknown): void {
    this.stranded.push(job);
    this.strandedBy ??= err;
  }

  /** Throws while the store still refuses writes. */
  private async giveBackStranded(): Promise<void> {
    if (!this.stranded.length) return;
    await this.deps.store.jobs.release(this.stranded, this.deps.clock.now());
    this.deps.log.info('learning gives back the jobs a refused write left claimed', { jobs: this.stranded.length });
    this.stranded = [];
    this.strandedBy = null;
  }

  /**
   * Reads, splits and embeds a document; with a model, its facts are queued in the same commit. A
   * rebuild (a document learned elsewhere, brought by an import) queues none: its facts came with
   * it, and proposing them again would double them or bring back ones the person forgot. A rebuilt
   * URL document is indexed from the passages the import stored, when it brought them, not fetched.
   */
  private async learnDocument(job: LearningJob): Promise<Commit> {
    const { store, clock, embedder } = this.deps;
    const doc = job.accountId && job.documentId ? await store.documents.get(job.accountId, job.documentId) : null;
    // Deleted while queued: nothing to learn.
    if (!doc) {
      return async (tx) => {
        await tx.jobs.complete(job, clock.now());
        return [];
      };
    }
    const kept = job.rebuild && doc.url != null ? await store.passages.list(doc.accountId, doc.id) : [];
    let passages = kept;
    if (kept.length === 0) {
      const read = doc.url != null ? await this.deps.readUrl(doc.url) : { text: doc.content ?? '', title: null };
      passages = splitPassages(read.text, doc.title ?? read.title);
    }
    if (passages.length === 0) throw new PermanentLearningError('The document holds no text to learn.');
    const vectors = embedder ? await embedPassages(embedder, passages, 'fast') : null;
    return async (tx) => {
      const ids = await completeDocument(tx, job, passages, vectors, clock.now(), this.facts !== null);
      return vectors ? ids : [];
    };
  }

  private async embedMemory(job: LearningJob): Promise<Commit> {
    const { store, clock, embedder } = this.deps;
    const passage = job.memoryId ? await store.passages.getForFact(job.memoryId) : null;
    const vectors = embedder && passage ? (await embedPassages(embedder, [passage], 'fast'))[0]! : null;
    return async (tx) => {
      const stored = passage && vectors ? await tx.vectors.put('fast', [{ passageId: passage.id, vectors }]) : [];
      await tx.jobs.complete(job, clock.now());
      return stored;
    };
  }

  /**
   * Embeds every passage that has no vector, batch by batch, each stored as it is made; an
   * interrupted run goes on where it stopped. The job itself ends in the batch's commit.
   */
  private async reembed(job: LearningJob): Promise<Commit> {
    const { store, clock, embedder } = this.deps;
    for (
      let batch = await store.passages.listWithoutVectors('fast', 0, REEMBED_BATCH);
      embedder && batch.length;
      batch = await store.passages.listWithoutVectors('fast', batch.at(-1)!.id, REEMBED_BATCH)
    ) {
      const vectors = await embedPassages(embedder, batch, 'fast');
      await this.deps.onIndexed(
        'fast',
        await store.vectors.put(
          'fast',
          batch.map((p, i) => ({ passageId: p.id, vectors: vectors[i]! })),
        ),
      );
      // Stopping: the job stays running, and the next start queues it again.
      if (this.stopping) return async () => [];
    }
    return async (tx) => {
      await tx.jobs.complete(job, clock.now());
      return [];
    };
  }
}

/**
 * The fact lane: learned documents' facts, picked out by the language model in a loop of its own
 * beside the runner's, so that a document is searchable as soon as it is indexed whatever the
 * model is doing. Each document's facts are an extract_facts job, queued in the commit that marks
 * it learned; the facts and the job's end commit together, so a job redone after a kill saves
 * nothing twice, and a job is only ever given back (never dropped) while the model is down.
 */
import type { Clock } from '../clock';
import { isStorageFull } from '../errors';
import type { Logger } from '../log';
import type { LearningJob, Store } from '../storage/store';
import { type AnswerFormat, ModelError } from '../language-model/model-client';
import { applyFacts, type FactExtractor, type LearnedDocument } from './fact-extractor';
import { renewWhileWorking } from './lease-renewal';
import { type ModelStatus, SLOW_SECONDS, writeModelStatus } from './model-status';
import { failJob } from './queue';

/** Jobs claimed at a time; at most this many short documents share a request. */
const CLAIM = 8;
/** A document this short (in characters) may share a request with the next ones of its container. */
const SHORT_CHARS = 700;
/** The most text a shared request reads. */
const SHARED_CHARS = 2400;
/** Attempts at a document whose answers are malformed before its facts fail for good (shown as failed). */
const MAX_ATTEMPTS = 5;
const IDLE_POLL_MS = 1000;
/** The pause after a round the store refused (a full disk); it doubles while rounds keep failing, up to the cap. */
const PAUSE_FIRST_MS = 1000;
const PAUSE_MAX_MS = 30_000;
/** The pause after the model did not answer; it doubles while it keeps not answering, up to the cap. */
const DOWN_FIRST_MS = 5000;
const DOWN_MAX_MS = 300_000;
/** Weight of the newest document in the seconds-a-document average. */
const AVERAGE_WEIGHT = 0.3;

interface Claimed {
  job: LearningJob;
  learned: LearnedDocument;
}

export interface FactLaneDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  extractor: FactExtractor;
  leaseMs: number;
}

export class FactLane {
  private running = false;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;
  /** Aborts the model's answer at hand when the lane stops: a stop waits for no model. */
  private stopping = new AbortController();
  /** While the model does not answer: the pause before it is asked again. */
  private downMs = 0;
  private status: ModelStatus;
  /** Jobs of a round the store refused to end (a full disk), given back when it takes writes again. */
  private stranded: LearningJob[] = [];

  constructor(private readonly deps: FactLaneDeps) {
    const model = deps.extractor.model;
    this.status = { model: model.model, state: 'ok', secondsPerDocument: null, format: null, error: null, at: 0 };
  }

  /** Checks the model with one small request, then works the queue until stopped. */
  start(): void {
    this.running = true;
    this.stopping = new AbortController();
    this.loop = this.work();
  }

  /** Tells an idle lane that a job was queued. A lane waiting out a model that is down keeps waiting. */
  notify(): void {
    if (!this.downMs) this.wake?.();
  }

  /** Gives back the jobs at hand (the model's answer is not awaited) and stops. */
  async stop(): Promise<void> {
    this.running = false;
    this.stopping.abort(new Error('the learner is stopping'));
    this.wake?.();
    await this.loop;
  }

  /**
   * Works every ready job; returns how many were ended (facts saved, or failed). Stops early when
   * the model does not answer: its jobs wait in the queue. Tests call this to step the lane.
   */
  async drain(): Promise<number> {
    let n = 0;
    for (;;) {
      const round = await this.round();
      n += round.ended;
      if (round.claimed === 0 || round.down || (!this.running && this.loop)) return n;
    }
  }

  /**
   * Rounds until stopped. A round the store refuses (a full disk) or that fails loses nothing (see
   * `round`): the lane pauses, longer while rounds keep failing, and tries again.
   */
  private async work(): Promise<void> {
    const { log } = this.deps;
    let checked = false;
    let pauseMs = 0;
    while (this.running) {
      let busy = false;
      try {
        if (this.downMs || !checked) await this.check();
        checked = true;
        if (!this.downMs) busy = (await this.round()).claimed > 0;
        if (pauseMs) log.info('fact extraction resumed');
        pauseMs = 0;
      } catch (err) {
        pauseMs = Math.min(PAUSE_MAX_MS, pauseMs * 2 || PAUSE_FIRST_MS);
        if (isStorageFull(err)) log.warn('fact extraction paused: the storage is full', { retry_in_ms: pauseMs });
        else log.error('fact extraction paused after a failure', { error: String(err), retry_in_ms: pauseMs });
      }
      if (!busy && this.running) await this.pause(pauseMs || this.downMs || IDLE_POLL_MS);
    }
  }

  private pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.wake = null;
    });
  }

  /** One small request: is the model there and answering? Sets the lane up or down accordingly. */
  private async check(): Promise<void> {
    const { model } = this.deps.extractor;
    let format: AnswerFormat;
    try {
      const checked = await model.check(this.stopping.signal);
      format = checked.format;
      if (this.downMs || !this.status.format)
        this.deps.log.info('the language model answers', { model: model.model, format, ms: Math.round(checked.ms) });
    } catch (err) {
      if (this.stopping.signal.aborted) return;
      // It answered, though not with a JSON object: it is there, and each document's answer is judged on its own.
      if (!(err instanceof ModelError && err.failure === 'malformed')) return this.down(err);
      this.deps.log.warn('the language model answers, but not with JSON: facts may fail', { model: model.model });
      format = model.answerFormat;
    }
    this.downMs = 0;
    await this.record({ state: this.paced(), format, error: null });
  }

  /** The model gave no answer: facts wait, asked for again after a pause that doubles. */
  private async down(err: unknown): Promise<void> {
    if (!this.downMs)
      this.deps.log.warn('the language model does not answer: facts wait for it; search is not affected', {
        model: this.deps.extractor.model.model,
        error: String(err),
      });
    this.downMs = Math.min(DOWN_MAX_MS, this.downMs * 2 || DOWN_FIRST_MS);
    await this.record({ state: 'unreachable', error: err instanceof ModelError ? err.reason : String(err) });
  }

  private async record(change: Partial<ModelStatus>): Promise<void> {
    this.status = { ...this.status, ...change, at: this.deps.clock.now() };
    await writeModelStatus(this.deps.store, this.status);
  }

  /**
   * Claims a few jobs and works them; `down` when the model stopped answering on the way. Should
   * the store refuse a write meanwhile (a full disk), the jobs it holds are given back, uncounted,
   * once it takes writes again (until then, throws).
   */
  private async round(): Promise<{ claimed: number; ended: number; down: boolean }> {
    const { store, clock, leaseMs } = this.deps;
    if (this.stranded.length) {
      await store.jobs.release(this.stranded, clock.now());
      this.stranded = [];
    }
    const jobs = await store.jobs.claim(clock.now(), CLAIM, leaseMs, 'facts');
    if (jobs.length === 0) return { claimed: 0, ended: 0, down: false };
    const renewal = renewWhileWorking(store, clock, jobs, leaseMs);
    let ended = 0;
    let down = false;
    try {
      const claimed: Claimed[] = [];
      for (const job of jobs) {
        const doc = await store.documents.get(job.accountId!, job.documentId!);
        const passages = doc ? await store.passages.list(doc.accountId, doc.id) : [];
        // Deleted since, or nothing to read: nothing to extract.
        if (!doc || passages.length === 0) {
          await store.jobs.complete(job, clock.now());
          ended++;
        } else claimed.push({ job, learned: { doc, passages } });
      }
      const groups = shareRequests(claimed);
      while (groups.length && !down && !this.stopping.signal.aborted) {
        const outcome = await this.extract(groups.shift()!);
        if (outcome === 'down') down = true;
        else ended += outcome;
      }
      const left = groups.flat().map((c) => c.job);
      if (left.length) await store.jobs.release(left, clock.now());
    } catch (err) {
      // Those already ended are left as they are: a release takes only jobs still running.
      this.stranded = jobs;
      throw err;
    } finally {
      clearInterval(renewal);
    }
    return { claimed: jobs.length, ended, down };
  }

  /**
   * Asks the model for one group's facts and commits them with the jobs' ends; returns how many
   * jobs ended, or `down`. No answer at all gives the jobs back uncounted, unless the model answers
   * the small check at once, which says it is the request (too long to answer in time) that fails.
   * A group whose request fails is asked again one document at a time; a document's own failure
   * counts against it (retried after a backoff, failed for good after MAX_ATTEMPTS).
   */
  private async extract(group: Claimed[]): Promise<number | 'down'> {
    const { store, clock, extractor } = this.deps;
    const jobs = group.map((c) => c.job);
    const started = performance.now();
    // Slow as soon as the request at hand has taken longer than its documents should.
    let slowSeen: Promise<void> | null = null;
    const slow = setTimeout(
      () => {
        slowSeen = this.record({ state: 'slow' }).catch(() => {});
      },
      SLOW_SECONDS * 1000 * group.length,
    );
    let actions;
    try {
      actions = await extractor.propose(
        store,
        group.map((c) => c.learned),
        this.stopping.signal,
      );
    } catch (err) {
      if (this.stopping.signal.aborted) {
        await store.jobs.release(jobs, clock.now());
        return 0;
      }
      if (!(err instanceof ModelError)) throw err;
      if (err.failure === 'unreachable') {
        await this.check();
        if (this.downMs) {
          await store.jobs.release(jobs, clock.now());
          return 'down';
        }
      }
      if (group.length === 1) {
        await this.fail(group[0]!, err);
        return 1;
      }
      let ended = 0;
      for (const [i, one] of group.entries()) {
        const outcome = await this.extract([one]);
        if (outcome === 'down') {
          await store.jobs.release(jobs.slice(i + 1), clock.now());
          return 'down';
        }
        ended += outcome;
      }
      return ended;
    } finally {
      clearTimeout(slow);
      await slowSeen;
    }
    const seconds = (performance.now() - started) / 1000 / group.length;
    const average =
      this.status.secondsPerDocument === null
        ? seconds
        : AVERAGE_WEIGHT * seconds + (1 - AVERAGE_WEIGHT) * this.status.secondsPerDocument;
    await store.transaction(async (tx) => {
      const now = clock.now();
      for (const [i, { job, learned }] of group.entries()) {
        // Another learner took the job when this one's lease ended (it stalled): its facts are that one's.
        if (!(await tx.jobs.renew([job], now, this.deps.leaseMs)).length) continue;
        // Deleted while the model read it: its facts go with it.
        if (actions[i]!.length && (await tx.documents.get(learned.doc.accountId, learned.doc.id)))
          await applyFacts(tx, learned.doc, actions[i]!, now);
        await tx.jobs.complete(job, now);
      }
      this.status = {
        ...this.status,
        secondsPerDocument: Math.round(average * 10) / 10,
        format: extractor.model.answerFormat,
        error: null,
        at: now,
      };
      this.status.state = this.paced();
      await writeModelStatus(tx, this.status);
    });
    return group.length;
  }

  /** `ok` or `slow`, as the model has answered lately. */
  private paced(): 'ok' | 'slow' {
    return (this.status.secondsPerDocument ?? 0) > SLOW_SECONDS ? 'slow' : 'ok';
  }

  /** A document's request got an answer that is no use: it counts against the document, and the model answers. */
  private async fail({ job, learned }: Claimed, err: ModelError): Promise<void> {
    const { store, clock, log } = this.deps;
    await this.record({ state: this.paced(), format: this.deps.extractor.model.answerFormat, error: null });
    const permanent = job.attempts >= MAX_ATTEMPTS;
    log.warn('facts could not be extracted', {
      job: job.id,
      document: learned.doc.id,
      permanent,
      error: err.message,
    });
    const now = clock.now();
    await failJob(store, job, err.message, permanent ? null : now + 1000 * 2 ** job.attempts, now);
  }
}

/**
 * The claimed jobs as requests: a run of short documents of one container (a conversation added
 * turn by turn) shares one, up to SHARED_CHARS; any other document has its own.
 */
function shareRequests(claimed: Claimed[]): Claimed[][] {
  const groups: Claimed[][] = [];
  let chars = 0;
  for (const c of claimed) {
    const size = c.learned.passages.reduce((n, p) => n + p.content.length, 0);
    const last = groups.at(-1);
    const head = last?.[0]?.learned.doc;
    const joins =
      last &&
      size <= SHORT_CHARS &&
      chars + size <= SHARED_CHARS &&
      head!.accountId === c.learned.doc.accountId &&
      head!.containerId === c.learned.doc.containerId;
    if (joins) {
      last.push(c);
      chars += size;
    } else {
      groups.push([c]);
      chars = size <= SHORT_CHARS ? size : SHARED_CHARS;
    }
  }
  return groups;
}

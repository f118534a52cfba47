/**
 * The exchange's backfill: on a store that holds turns learned before the exchange (migration
 * 0026), every turn's context is written in the background after start, as learning the turns in
 * order would have written it (`relink`, the one rule). The learning runner calls it between
 * rounds (its upkeep); each call is one short transaction of a batch of documents, its contexts
 * and its progress mark (the setting migration 0028 adds) committing together, so a kill loses
 * nothing and a restart goes on from the mark. On a shared store the mark's row elects the
 * process that runs a batch (`settings.claim`), and relinks of the same container take turns with
 * it (`passages.turnsAround`), so a turn learned or deleted meanwhile ends with the right context.
 */
import { isStorageFull } from '../errors';
import type { Logger } from '../log';
import type { TurnMark } from '../storage/passages';
import type { Store } from '../storage/store';
import { relink } from './exchange';

/** The backfill's progress mark: '' before it starts, a `TurnMark` as JSON, then 'done'. */
export const EXCHANGE_BACKFILL_SETTING = 'exchange_backfill';
const DONE = 'done';

/**
 * Documents relinked in one transaction: a turn's context costs SQLite ~15 ms (its keyword entry
 * replaced with secure-delete), so a batch holds the store's writers back ~0.3 s at most.
 */
const BACKFILL_BATCH = 20;

/** How often the backfill logs how far it got. */
const REPORT_EVERY_MS = 10_000;

/** The wait after a failed batch; it doubles while batches keep failing, up to the cap. */
const RETRY_FIRST_MS = 1_000;
const RETRY_MAX_MS = 60_000;

/** What kind of failure a batch's is, as its warning names it: a full disk, or the store's error code. */
function failureKind(err: unknown): string {
  if (isStorageFull(err)) return 'storage_full';
  const { code, errno, name } = (err ?? {}) as { code?: unknown; errno?: unknown; name?: unknown };
  return String(code ?? errno ?? name ?? 'unknown');
}

type Outcome = 'elsewhere' | 'done' | { documents: number; written: number; from: string; finished: boolean };

/** One batch in its own transaction. */
function runBatch(store: Store, batch: number): Promise<Outcome> {
  return store.transaction(async (tx): Promise<Outcome> => {
    const from = await tx.settings.claim(EXCHANGE_BACKFILL_SETTING);
    if (from === null) return 'elsewhere';
    if (from === DONE) return 'done';
    const run = await tx.passages.turnsAfter(from ? (JSON.parse(from) as TurnMark) : null, batch);
    if (!run) {
      await tx.settings.set(EXCHANGE_BACKFILL_SETTING, DONE);
      return { documents: 0, written: 0, from, finished: true };
    }
    const targets = Array.from({ length: run.last - run.first + 1 }, (_, i) => run.first + i);
    const written = await relink(tx, run.window, targets);
    await tx.settings.set(EXCHANGE_BACKFILL_SETTING, JSON.stringify(run.mark));
    return { documents: targets.length, written, from, finished: false };
  });
}

/**
 * The runner's upkeep step: one batch; true while work remains. Logs when it starts (or resumes),
 * how far it got every ten seconds, and when it is done. A batch that fails (a full disk, a busy
 * store, a deadlock PostgreSQL broke) is tried again after a wait that doubles while batches keep
 * failing (1 s to a minute), and logged once for each kind of failure, not at every try, until a
 * batch succeeds again, which says so. While another process runs the backfill, this one waits
 * a round.
 */
export function exchangeBackfill(
  store: Store,
  log: Logger,
  batch = BACKFILL_BATCH,
  now: () => number = Date.now,
): () => Promise<boolean> {
  let finished = false;
  let startedAt = 0;
  let reportedAt = 0;
  const done = { documents: 0, contexts: 0 };
  const failing = { tries: 0, retryAt: 0, kinds: new Set<string>() };
  return async () => {
    if (finished || now() < failing.retryAt) return false;
    let outcome: Outcome;
    try {
      outcome = await runBatch(store, batch);
    } catch (err) {
      const kind = failureKind(err);
      if (!failing.kinds.has(kind))
        log.warn('the exchange backfill: a batch failed; it is tried again, less often while it keeps failing', {
          kind,
          error: String(err),
        });
      failing.tries++;
      failing.kinds.add(kind);
      failing.retryAt = now() + Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failing.tries - 1));
      return false;
    }
    if (failing.tries) {
      log.info('the exchange backfill goes on: a batch succeeded after failed tries', { tries: failing.tries });
      Object.assign(failing, { tries: 0, retryAt: 0, kinds: new Set() });
    }
    if (outcome === 'elsewhere') return false;
    if (outcome === 'done') {
      finished = true;
      return false;
    }
    const at = now();
    if (!startedAt) {
      startedAt = reportedAt = at;
      log.info(
        outcome.from
          ? 'the exchange backfill resumes: the contexts of turns learned before the exchange'
          : 'the exchange backfill starts: the contexts of turns learned before the exchange, in the background',
      );
    }
    done.documents += outcome.documents;
    done.contexts += outcome.written;
    if (outcome.finished) {
      finished = true;
      log.info('the exchange backfill is done', { ...done, seconds: (at - startedAt) / 1000 });
    } else if (at - reportedAt >= REPORT_EVERY_MS) {
      reportedAt = at;
      log.info('the exchange backfill goes on', done);
    }
    return !finished;
  };
}

/**
 * Filling the keyword index that migration 0026 creates (stemmed, as 0008 first made it, with the
 * turns' context as a third column), and the switch that retires the old one. A small store is
 * reindexed inside the migration; a larger one in short batches by the learning worker while the
 * server answers, keyword search using the old index until the switch.
 */
import type { Database } from 'bun:sqlite';
import type { Logger } from '../../log';

/**
 * Passages copied in one transaction: about 15 ms of CPU for passages of 540 characters on average
 * (docs/performance.md), the longest a writer waits on the rebuild on a quiet machine.
 */
export const REBUILD_BATCH = 200;

/**
 * A store with at most this many passages to copy is reindexed inside migration 0026, at start:
 * about 0.15 s of CPU. Larger ones are rebuilt in the background.
 */
export const INLINE_REBUILD_MAX = 2_000;

interface Progress {
  done: number;
  upto: number;
}

function progress(db: Database): Progress | null {
  const pending = db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'keyword_index_rebuild'").get();
  return pending ? db.query<Progress, []>('SELECT done, upto FROM keyword_index_rebuild').get() : null;
}

const remaining = (db: Database, p: Progress): number =>
  db
    .query<{ n: number }, [number, number]>('SELECT count(*) AS n FROM passages WHERE id > ? AND id <= ?')
    .get(p.done, p.upto)!.n;

/**
 * Copies up to `limit` passages past `done` into the new index and moves `done` past them, in the
 * caller's write transaction, so a batch and its mark commit together: after a kill the rebuild
 * goes on from the mark, and no passage is copied twice. Returns the new mark.
 */
function copyBatch(db: Database, p: Progress, limit: number): number {
  const last = db
    .query<{ id: number | null }, [number, number, number]>(
      'SELECT max(id) AS id FROM (SELECT id FROM passages WHERE id > ? AND id <= ? ORDER BY id LIMIT ?)',
    )
    .get(p.done, p.upto, limit)!.id;
  // Fewer than `limit` left: this batch reaches the end of the range, whatever ids were deleted.
  const through = last === null || p.upto - p.done <= limit ? p.upto : last;
  db.run(
    'INSERT INTO passages_stem_fts (rowid, title, content, context) SELECT id, title, content, context FROM passages WHERE id > ? AND id <= ? ORDER BY id',
    [p.done, through],
  );
  db.run('UPDATE keyword_index_rebuild SET done = ?', [through]);
  return through;
}

/**
 * Retires the old index, in the caller's transaction: its table and triggers go, the new index
 * takes its name (so every query, prepared before or after, reads whichever index is complete),
 * and the new index's triggers lose the conditions they needed while it was being filled.
 */
function switchIndex(db: Database): void {
  db.run(`
    DROP TRIGGER passages_ai; DROP TRIGGER passages_ad; DROP TRIGGER passages_au;
    DROP TRIGGER passages_stem_ai; DROP TRIGGER passages_stem_ad; DROP TRIGGER passages_stem_au;
    DROP TABLE passages_fts;
    DROP TABLE keyword_index_rebuild;
    ALTER TABLE passages_stem_fts RENAME TO passages_fts;
    CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
      INSERT INTO passages_fts(rowid, title, content, context) VALUES (new.id, new.title, new.content, new.context);
    END;
    CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
      INSERT INTO passages_fts(passages_fts, rowid, title, content, context)
        VALUES ('delete', old.id, old.title, old.content, old.context);
    END;
    CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
      INSERT INTO passages_fts(passages_fts, rowid, title, content, context)
        VALUES ('delete', old.id, old.title, old.content, old.context);
      INSERT INTO passages_fts(rowid, title, content, context) VALUES (new.id, new.title, new.content, new.context);
    END;`);
}

/**
 * Migration 0026's second half, inside its transaction: a fresh or small store gets the whole new
 * index and the switch at once; a larger one is left for `KeywordIndexRebuild`.
 */
export function rebuildSmallKeywordIndex(db: Database): void {
  const p = progress(db);
  if (!p || remaining(db, p) > INLINE_REBUILD_MAX) return;
  copyBatch(db, p, Number.MAX_SAFE_INTEGER);
  switchIndex(db);
}

/**
 * The background rebuild of a store too large to reindex at start. The learning worker calls
 * `step` between rounds of jobs; each call is one short write transaction.
 */
export class KeywordIndexRebuild {
  private finished = false;
  private announced = false;

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly batch = REBUILD_BATCH,
  ) {}

  /**
   * Copies one batch, or, once all are copied, switches keyword search to the new index. Returns
   * true while work remains. The first call logs which index keyword search uses; the switch says
   * so too. A failed batch (a lock held past the busy timeout) is logged and tried at a later call.
   */
  step(): boolean {
    if (this.finished) return false;
    try {
      const outcome = this.db
        .transaction(() => {
          const p = progress(this.db);
          if (!this.announced) this.announce(p);
          if (!p) return 'finished';
          if (p.done < p.upto) return copyBatch(this.db, p, this.batch) < p.upto ? 'copying' : 'copied';
          switchIndex(this.db);
          return 'switched';
        })
        .immediate();
      if (outcome === 'switched')
        this.log.info('keyword search switched to the stemmed index; the old index is dropped');
      this.finished = outcome === 'finished' || outcome === 'switched';
    } catch (err) {
      this.log.warn('keyword index rebuild: a batch failed and will be tried again', { error: String(err) });
      return false;
    }
    return !this.finished;
  }

  private announce(p: Progress | null): void {
    this.announced = true;
    if (!p) {
      this.log.info('keyword search uses the stemmed index');
      return;
    }
    this.log.info('keyword search uses the old index while the stemmed one is rebuilt in the background', {
      passages_left: remaining(this.db, p),
    });
  }
}

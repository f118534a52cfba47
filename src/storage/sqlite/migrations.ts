/**
 * The SQL migrations, embedded so that a compiled binary carries them. Applied in order at start,
 * each in its own transaction, and recorded in `schema_migrations` so a second start skips them.
 * A migration may end with a step in code (`finish`), run in the same transaction after its SQL.
 */
import type { Database } from 'bun:sqlite';
import { NAME_CHARS, nameKey, withoutInvisible } from '../../names';
import { NewerStoreError } from '../newer-store';
import { rebuildSmallKeywordIndex } from './fts-rebuild';
import init from '../../../migrations/0001_init.sql' with { type: 'text' };
import learning from '../../../migrations/0002_learning.sql' with { type: 'text' };
import oauth from '../../../migrations/0003_oauth.sql' with { type: 'text' };
import exposures from '../../../migrations/0004_exposures.sql' with { type: 'text' };
import factHistory from '../../../migrations/0005_fact_history.sql' with { type: 'text' };
import factProvenance from '../../../migrations/0006_fact_provenance.sql' with { type: 'text' };
import learningRebuild from '../../../migrations/0007_learning_rebuild.sql' with { type: 'text' };
import porterFts from '../../../migrations/0008_porter_fts.sql' with { type: 'text' };
import idempotencyKeys from '../../../migrations/0009_idempotency_keys.sql' with { type: 'text' };
import passageVectors from '../../../migrations/0010_passage_vectors.sql' with { type: 'text' };
import factReview from '../../../migrations/0011_fact_review.sql' with { type: 'text' };
import importOrigins from '../../../migrations/0012_import_origins.sql' with { type: 'text' };
import keywordSecureDelete from '../../../migrations/0013_keyword_secure_delete.sql' with { type: 'text' };
import factWriter from '../../../migrations/0014_fact_writer.sql' with { type: 'text' };
import exposureExpiry from '../../../migrations/0015_exposure_expiry.sql' with { type: 'text' };
import accessLog from '../../../migrations/0016_access_log.sql' with { type: 'text' };
import vectorSnapshot from '../../../migrations/0017_vector_snapshot.sql' with { type: 'text' };
import containers from '../../../migrations/0018_containers.sql' with { type: 'text' };
import jobLeases from '../../../migrations/0021_job_leases.sql' with { type: 'text' };
import importFile from '../../../migrations/0022_import_file.sql' with { type: 'text' };
import factJobs from '../../../migrations/0023_fact_jobs.sql' with { type: 'text' };
import removedPassages from '../../../migrations/0024_removed_passages.sql' with { type: 'text' };
import jobIndexes from '../../../migrations/0025_job_indexes.sql' with { type: 'text' };
import keywordContext from '../../../migrations/0026_keyword_context.sql' with { type: 'text' };
import documentCustomIds from '../../../migrations/0027_document_custom_ids.sql' with { type: 'text' };
import exchangeBackfill from '../../../migrations/0028_exchange_backfill.sql' with { type: 'text' };

const MIGRATIONS: ReadonlyArray<{ version: string; sql: string; finish?: (db: Database) => void }> = [
  { version: '0001_init', sql: init },
  { version: '0002_learning', sql: learning },
  { version: '0003_oauth', sql: oauth },
  { version: '0004_exposures', sql: exposures },
  { version: '0005_fact_history', sql: factHistory },
  { version: '0006_fact_provenance', sql: factProvenance },
  { version: '0007_learning_rebuild', sql: learningRebuild },
  // The index 0008 began is made again by 0026, with a column more, and filled there.
  { version: '0008_porter_fts', sql: porterFts },
  { version: '0009_idempotency_keys', sql: idempotencyKeys },
  { version: '0010_passage_vectors', sql: passageVectors },
  { version: '0011_fact_review', sql: factReview },
  { version: '0012_import_origins', sql: importOrigins },
  { version: '0013_keyword_secure_delete', sql: keywordSecureDelete, finish: secureDeleteStemIndex },
  { version: '0014_fact_writer', sql: factWriter },
  { version: '0015_exposure_expiry', sql: exposureExpiry },
  { version: '0016_access_log', sql: accessLog },
  { version: '0017_vector_snapshot', sql: vectorSnapshot },
  { version: '0018_containers', sql: containers, finish: keyContainerNames },
  { version: '0021_job_leases', sql: jobLeases },
  { version: '0022_import_file', sql: importFile },
  { version: '0023_fact_jobs', sql: factJobs },
  { version: '0024_removed_passages', sql: removedPassages },
  { version: '0025_job_indexes', sql: jobIndexes },
  { version: '0026_keyword_context', sql: keywordContext, finish: rebuildSmallKeywordIndex },
  { version: '0027_document_custom_ids', sql: documentCustomIds },
  { version: '0028_exchange_backfill', sql: exchangeBackfill },
];

/** The stemmed index of a rebuild still under way (0008) deletes securely too once it takes over. */
function secureDeleteStemIndex(db: Database): void {
  if (db.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'passages_stem_fts'").get()) {
    db.run("INSERT INTO passages_stem_fts(passages_stem_fts, rank) VALUES ('secure-delete', 1)");
  }
}

/**
 * 0018: each container's name as the rule now reads it, and its compared form. Oldest first per
 * account, a name that reads as an earlier one's becomes "Notes (2)" (or the next number free,
 * never a name another container will keep), so that the unique index can be made.
 */
function keyContainerNames(db: Database): void {
  const rows = db
    .query<{ id: string; account_id: string; name: string }, []>(
      'SELECT id, account_id, name FROM containers ORDER BY account_id, created_at, rowid',
    )
    .all();
  const clean = (name: string) => withoutInvisible(name) || 'Unnamed';
  const kept = new Set(rows.map((r) => `${r.account_id}\n${nameKey(clean(r.name))}`));
  const taken = new Set<string>();
  const update = db.query('UPDATE containers SET name = ?, name_key = ? WHERE id = ?');
  for (const row of rows) {
    const base = clean(row.name);
    let name = base;
    for (let n = 2; taken.has(`${row.account_id}\n${nameKey(name)}`); n++) {
      const suffix = ` (${n})`;
      name = `${base.slice(0, NAME_CHARS - suffix.length)}${suffix}`;
      if (kept.has(`${row.account_id}\n${nameKey(name)}`)) name = base; // another container keeps that name: try the next number
    }
    taken.add(`${row.account_id}\n${nameKey(name)}`);
    update.run(name, nameKey(name), row.id);
  }
  db.run('CREATE UNIQUE INDEX containers_account_name_key ON containers(account_id, name_key)');
}

/** The migrations a store records as applied. */
export function recordedMigrations(db: Database): string[] {
  return db
    .query<{ version: string }, []>('SELECT version FROM schema_migrations')
    .all()
    .map((r) => r.version);
}

/** Of a store's recorded migrations, those this release does not know: a newer release applied them. */
export function newerMigrations(recorded: string[]): string[] {
  const known = new Set(MIGRATIONS.map((m) => m.version));
  return recorded.filter((v) => !known.has(v));
}

/**
 * Applies every migration not yet recorded; returns the versions it applied. A store migrated by a
 * newer release is refused untouched (NewerStoreError), as `engram restore` refuses its backups.
 */
export function migrate(db: Database, now: number): string[] {
  db.run('CREATE TABLE IF NOT EXISTS schema_migrations (version TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)');
  const recorded = recordedMigrations(db);
  const newer = newerMigrations(recorded);
  if (newer.length) {
    throw new NewerStoreError(
      `The store in this data directory was written by a newer Engram (migrations ${newer.join(', ')}): run that release or a later one; this one could misread it.`,
    );
  }
  const applied = new Set(recorded);
  const done: string[] = [];
  for (const m of MIGRATIONS) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.run(m.sql);
      m.finish?.(db);
      db.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [m.version, now]);
    })();
    done.push(m.version);
  }
  return done;
}

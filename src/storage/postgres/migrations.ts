/**
 * The PostgreSQL store's migrations (migrations/postgres/), embedded so that a compiled binary
 * carries them: applied in order at start, in one transaction, and recorded in `schema_migrations`.
 * Processes starting at once take turns (an advisory lock); a database a newer release migrated is
 * refused untouched, as SQLite's store is.
 */
import type { SQL } from 'bun';
import init from '../../../migrations/postgres/0001_init.sql' with { type: 'text' };
import sharedLimits from '../../../migrations/postgres/0002_shared_limits.sql' with { type: 'text' };
import vectorFeedFloor from '../../../migrations/postgres/0003_vector_feed_floor.sql' with { type: 'text' };
import passageKeywords from '../../../migrations/postgres/0004_passage_keywords.sql' with { type: 'text' };
import importFile from '../../../migrations/postgres/0005_import_file.sql' with { type: 'text' };
import factJobs from '../../../migrations/postgres/0006_fact_jobs.sql' with { type: 'text' };
import keywordContext from '../../../migrations/postgres/0007_keyword_context.sql' with { type: 'text' };
import exchangeBackfill from '../../../migrations/postgres/0008_exchange_backfill.sql' with { type: 'text' };
import { NewerStoreError } from '../newer-store';

const MIGRATIONS: ReadonlyArray<{ version: string; sql: string }> = [
  { version: '0001_init', sql: init },
  { version: '0002_shared_limits', sql: sharedLimits },
  { version: '0003_vector_feed_floor', sql: vectorFeedFloor },
  { version: '0004_passage_keywords', sql: passageKeywords },
  { version: '0005_import_file', sql: importFile },
  { version: '0006_fact_jobs', sql: factJobs },
  { version: '0007_keyword_context', sql: keywordContext },
  { version: '0008_exchange_backfill', sql: exchangeBackfill },
];

/** Applies every migration not yet recorded; returns the versions it applied. Throws NewerStoreError for a database a newer release migrated. */
export function migrate(sql: SQL, now: number): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(hashtext('engram_migrations'))`;
    await tx`CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at bigint NOT NULL)`;
    const recorded = new Set<string>(
      (await tx`SELECT version FROM schema_migrations`).map((r: { version: string }) => r.version),
    );
    const known = new Set(MIGRATIONS.map((m) => m.version));
    const newer = [...recorded].filter((v) => !known.has(v));
    if (newer.length) {
      throw new NewerStoreError(
        `The database was written by a newer Engram (migrations ${newer.join(', ')}): run that release or a later one; this one could misread it.`,
      );
    }
    const done: string[] = [];
    for (const m of MIGRATIONS) {
      if (recorded.has(m.version)) continue;
      await tx.unsafe(m.sql);
      await tx`INSERT INTO schema_migrations (version, applied_at) VALUES (${m.version}, ${now})`;
      done.push(m.version);
    }
    return done;
  });
}

/**
 * A store that a newer release has migrated is refused, before any migration of this release runs
 * on it: `engram serve` and the store commands exit 1 with a message for the person, and the store
 * is as it was.
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DB_FILE, openDatabase } from '../../src/storage/sqlite/open';

const ROOT = join(import.meta.dir, '../..');
const FUTURE = '9999_from_a_newer_release';

describe('a store written by a newer release', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-newer-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A current store, then as a newer release would leave it: one migration more. This release's last
  // migration is taken back too, so that applying it before the refusal would show.
  openDatabase(dir, Date.now()).close();
  const db = new Database(join(dir, DB_FILE));
  db.run('DROP TRIGGER passage_vectors_snapshot_au');
  db.run('DROP TRIGGER passage_vectors_snapshot_ad');
  db.run("DELETE FROM schema_migrations WHERE version = '0017_vector_snapshot'");
  db.run('INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)', [FUTURE, Date.now()]);
  db.close();
  const recorded = () => {
    const store = new Database(join(dir, DB_FILE), { readonly: true });
    try {
      return {
        versions: store
          .query<{ version: string }, []>('SELECT version FROM schema_migrations ORDER BY version')
          .all()
          .map((r) => r.version),
        triggers: store
          .query<{ name: string }, []>(
            "SELECT name FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'passage_vectors_snapshot%'",
          )
          .all(),
      };
    } finally {
      store.close();
    }
  };
  const before = recorded();

  it.each([
    ['serve', ['serve', '--port', '0', '--host', '127.0.0.1']],
    ['a store command', ['containers', 'list']],
  ])('is refused by %s with a message naming the newer migrations, and left as it was', (_, args) => {
    // A server that started after all would run on: the timeout ends it, and the test fails.
    const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args, '--data', dir], {
      cwd: '/',
      stdin: 'ignore',
      timeout: 4_000,
    });
    expect(run.exitCode).toBe(1);
    expect(run.stderr.toString()).toBe(
      `engram: The store in this data directory was written by a newer Engram (migrations ${FUTURE}): run that release or a later one; this one could misread it.\n`,
    );
    expect(recorded()).toEqual(before);
    expect(before.versions).toContain(FUTURE);
    expect(before.versions).not.toContain('0017_vector_snapshot');
  });
});

/**
 * The exchange's backfill on a store of an earlier release, opened by this one: migration 0028
 * owes it to a store with documents (and not to a new one), and the backfill gives the turns that
 * release learned, side by side without context, the context learning gives them now, once.
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, it } from 'bun:test';
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXCHANGE_BACKFILL_SETTING, exchangeBackfill } from '../../src/learning/exchange-backfill';
import type { Logger } from '../../src/log';
import { openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';

const FIXTURE = join(import.meta.dir, '../fixtures/release-0.1');
const { containers } = JSON.parse(readFileSync(join(FIXTURE, 'credentials.json'), 'utf8')) as {
  containers: { Work: string };
};
const TURNS = {
  question: '[3 May 2024, 18:02] Ann: How did the appointment with the vet go?',
  reply: '[3 May 2024, 18:09] Bo: Sprained paw, nothing broken.',
  after: '[3 May 2024, 18:15] Ann: Poor Rex!',
};

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});
const dataDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-backfill-'));
  dirs.push(dir);
  return dir;
};
function captureLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (msg: string) => void lines.push(msg);
  return { lines, debug: at, info: at, warn: at, error: at };
}

/** A store of the earlier release in `dir` holding TURNS as it learned them: a document and its one passage each, its schema's own. */
function oldStoreWithTurns(dir: string): string {
  copyFileSync(join(FIXTURE, 'engram.db'), join(dir, 'engram.db'));
  const old = new Database(join(dir, 'engram.db'));
  const accountId = old.query<{ id: string }, []>('SELECT id FROM accounts').get()!.id;
  const now = Date.now();
  Object.entries(TURNS).forEach(([name, content], i) => {
    old.run(
      "INSERT INTO documents (id, account_id, container_id, content, status, created_at, updated_at, learned_at) VALUES (?, ?, ?, ?, 'learned', ?, ?, ?)",
      [`doc_${name}`, accountId, containers.Work, content, now + i, now + i, now + i],
    );
    old.run('INSERT INTO passages (account_id, container_id, document_id, position, content) VALUES (?, ?, ?, 0, ?)', [
      accountId,
      containers.Work,
      `doc_${name}`,
      content,
    ]);
  });
  old.close();
  return accountId;
}

it('gives the turns an earlier release learned their context, once', async () => {
  const dir = dataDir();
  const accountId = oldStoreWithTurns(dir);

  const db = openDatabase(dir, Date.now());
  const store = openSqliteStore(db);
  const found = async (q: string) =>
    db
      .query<{ documentId: string }, [string]>(
        'SELECT document_id AS documentId FROM passages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY document_id',
      )
      .all(JSON.stringify((await store.passages.search(accountId, [containers.Work], q, 10)).map((h) => h.passageId)))
      .map((r) => r.documentId);
  try {
    expect(await store.settings.get(EXCHANGE_BACKFILL_SETTING)).toBe('');
    expect(await found('sprained paw')).toEqual(['doc_reply']);

    const log = captureLog();
    const step = exchangeBackfill(store, log, 2);
    while (await step());
    expect(await found('sprained paw')).toEqual(['doc_after', 'doc_question', 'doc_reply']);
    expect(await store.settings.get(EXCHANGE_BACKFILL_SETTING)).toBe('done');
    expect(log.lines).toEqual([
      'the exchange backfill starts: the contexts of turns learned before the exchange, in the background',
      'the exchange backfill is done',
    ]);

    // Done once: a later start finds nothing to do, and writes nothing.
    await store.passages.setContexts([{ passageId: 1, context: 'left as it is' }]);
    expect(await exchangeBackfill(store, captureLog())()).toBe(false);
    expect(db.query('SELECT context FROM passages WHERE id = 1').get()).toEqual({ context: 'left as it is' });
  } finally {
    await store.close();
  }
});

describe('a batch that keeps failing', () => {
  // A full disk, for real: a small tmpfs the test fills (mounting needs root: skipped, saying so, where refused).
  const home = mkdtempSync(join(tmpdir(), 'engram-backfill-full-'));
  const disk = join(home, 'disk');
  mkdirSync(disk);
  const mount = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=8m', 'tmpfs', disk]);
  if (mount.exitCode !== 0)
    console.warn(
      `the backfill's full-disk test SKIPPED: \`mount -t tmpfs\` was refused: ${mount.stderr.toString().trim()}`,
    );
  afterAll(() => {
    // Lazily: the closed store's files are let go once what drizzle prepared on them is collected.
    if (mount.exitCode === 0) Bun.spawnSync(['umount', '--lazy', disk]);
    rmSync(home, { recursive: true, force: true });
  });

  it.skipIf(mount.exitCode !== 0)('is logged once, tried less often, and goes on once space is freed', async () => {
    oldStoreWithTurns(disk);
    const db = openDatabase(disk, Date.now());
    const store = openSqliteStore(db);
    const filler = join(disk, 'filler');
    try {
      fillDisk(filler);
      let clock = 0;
      const log = captureLog();
      const step = exchangeBackfill(store, log, 2, () => clock);
      for (let i = 0; i < 6; i++) {
        expect(await step()).toBe(false);
        clock += 120_000; // past the longest wait
      }
      const warning = 'the exchange backfill: a batch failed; it is tried again, less often while it keeps failing';
      expect(log.lines).toEqual([warning]);

      rmSync(filler);
      expect(await step()).toBe(true);
      // A new run of failures, logged again; the wait after its first is a second.
      fillDisk(filler);
      expect(await step()).toBe(false);
      rmSync(filler);
      expect(await step()).toBe(false);
      clock += 999;
      expect(await step()).toBe(false);
      clock += 1;
      while (await step());
      expect(log.lines).toEqual([
        warning,
        'the exchange backfill goes on: a batch succeeded after failed tries',
        'the exchange backfill starts: the contexts of turns learned before the exchange, in the background',
        warning,
        'the exchange backfill goes on: a batch succeeded after failed tries',
        'the exchange backfill is done',
      ]);
      expect(db.query('SELECT count(*) AS n FROM passages WHERE context IS NOT NULL').get()).toEqual({ n: 3 });
      expect(await store.settings.get(EXCHANGE_BACKFILL_SETTING)).toBe('done');
    } finally {
      rmSync(filler, { force: true });
      await store.close();
    }
  });
});

/** Fills the disk `file` is on to the last byte. */
function fillDisk(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1 << 20, 1 << 12, 1]) {
      try {
        for (;;) writeSync(fd, Buffer.alloc(size, 7));
      } catch {}
    }
  } finally {
    closeSync(fd);
  }
}

it('owes no backfill to a new store', async () => {
  const store = openSqliteStore(openDatabase(dataDir(), Date.now()));
  try {
    expect(await store.settings.get(EXCHANGE_BACKFILL_SETTING)).toBe('done');
  } finally {
    await store.close();
  }
});

/**
 * The exchange's backfill on a store of an earlier release, opened by this one: migration 0028
 * owes it to a store with documents (and not to a new one), and the backfill gives the turns that
 * release learned, side by side without context, the context learning gives them now, once.
 */
import { Database } from 'bun:sqlite';
import { afterAll, expect, it } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
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

it('gives the turns an earlier release learned their context, once', async () => {
  const dir = dataDir();
  copyFileSync(join(FIXTURE, 'engram.db'), join(dir, 'engram.db'));
  // The turns as that release learned them: a document and its one passage each, its schema's own.
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

  const db = openDatabase(dir, Date.now());
  const store = openSqliteStore(db);
  const found = async (q: string) =>
    db
      .query<{ documentId: string }, [string]>(
        'SELECT document_id AS documentId FROM passages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY document_id',
      )
      .all(JSON.stringify((await store.passages.search(accountId, containers.Work, q, 10)).map((h) => h.passageId)))
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

it('owes no backfill to a new store', async () => {
  const store = openSqliteStore(openDatabase(dataDir(), Date.now()));
  try {
    expect(await store.settings.get(EXCHANGE_BACKFILL_SETTING)).toBe('done');
  } finally {
    await store.close();
  }
});

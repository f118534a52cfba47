/**
 * Migration 0008, the stemmed keyword index, on stores made by the previous release: the fixture
 * store (test/fixtures/release-0.1), and larger ones grown from it with the old schema, rebuilt in
 * the background while searches and writes go on, interrupted, and resumed. One check runs the
 * real server on such a store and searches over REST.
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, it } from 'bun:test';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../../src/log';
import { INLINE_REBUILD_MAX, KeywordIndexRebuild } from '../../src/storage/sqlite/fts-rebuild';
import { openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';
import type { Store } from '../../src/storage/store';
import { call, startTestServer } from '../helpers/server';

const FIXTURE = join(import.meta.dir, '../fixtures/release-0.1');
const CREDENTIALS = JSON.parse(readFileSync(join(FIXTURE, 'credentials.json'), 'utf8')) as {
  key: string;
  containers: { Personal: string; Work: string };
};
/** Passages grown onto the fixture for the online cases: well past what the migration reindexes at once. */
const LARGE = 30_000;

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A copy of a store (the previous release's by default) in a data directory of its own. */
function fixtureCopy(file = join(FIXTURE, 'engram.db')): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-fts-'));
  dirs.push(dir);
  copyFileSync(file, join(dir, 'engram.db'));
  return dir;
}

let grownFile: string | null = null;
/** A copy of the fixture grown by LARGE passages with the old schema; grown once, copied for each test. */
function grownCopy(): string {
  if (!grownFile) {
    const dir = fixtureCopy();
    growOldStore(dir, LARGE);
    grownFile = join(dir, 'engram.db');
  }
  return fixtureCopy(grownFile);
}

/**
 * Grows the copy, before the current code ever opens it, by `n` passages in the Work container,
 * written as the previous release would have (its triggers fill its index). Each holds a token of
 * its own (`t<i>z`) and the word "walking"; a hundred documents of them.
 */
function growOldStore(dir: string, n: number): void {
  const db = new Database(join(dir, 'engram.db'));
  const accountId = db.query<{ id: string }, []>('SELECT id FROM accounts').get()!.id;
  const now = Date.now();
  db.transaction(() => {
    const doc = db.prepare(
      "INSERT INTO documents (id, account_id, container_id, content, status, created_at, updated_at, learned_at) VALUES (?, ?, ?, '', 'learned', ?, ?, ?)",
    );
    const passage = db.prepare(
      'INSERT INTO passages (account_id, container_id, document_id, position, content) VALUES (?, ?, ?, ?, ?)',
    );
    for (let i = 0; i < n; i++) {
      const docId = `doc_grown${Math.floor(i / (n / 100))}`;
      if (i % (n / 100) === 0) doc.run(docId, accountId, CREDENTIALS.containers.Work, now, now, now);
      passage.run(
        accountId,
        CREDENTIALS.containers.Work,
        docId,
        i % (n / 100),
        `Entry t${i}z of the log: walking notes and a market visit.`,
      );
    }
  })();
  db.close();
}

function accountOf(db: Database): string {
  return db.query<{ id: string }, []>('SELECT id FROM accounts').get()!.id;
}

/** Ids of passages the store finds for `q` in a container (up to 100). */
async function found(store: Store, accountId: string, containerId: string, q: string): Promise<number[]> {
  return (await store.passages.search(accountId, [containerId], q, 100)).map((h) => h.passageId);
}

/** The keyword index's schema as it should be once switched: the stemmed index alone, under the old name. */
function expectSwitched(db: Database): void {
  const objects = db
    .query<{ name: string; type: string; sql: string | null }, []>(
      "SELECT name, type, sql FROM sqlite_schema WHERE name LIKE 'passages_%' OR name = 'keyword_index_rebuild' ORDER BY name",
    )
    .all();
  const names = objects.map((o) => o.name);
  expect(names.filter((n) => n.includes('stem') || n === 'keyword_index_rebuild')).toEqual([]);
  expect(objects.find((o) => o.name === 'passages_fts')!.sql).toContain(
    "tokenize = 'porter unicode61 remove_diacritics 2'",
  );
  const triggers = db
    .query<{ name: string; sql: string }, []>(
      "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND tbl_name = 'passages' AND sql LIKE '%passages_fts%'",
    )
    .all();
  expect(triggers.map((t) => t.name).sort()).toEqual(['passages_ad', 'passages_ai', 'passages_au']);
  for (const t of triggers) expect(t.sql).not.toContain('keyword_index_rebuild');
  // The index holds exactly the passages there are: none missing, none twice (FTS5 compares checksums).
  db.run("INSERT INTO passages_fts (passages_fts, rank) VALUES ('integrity-check', 1)");
}

function pending(db: Database): { done: number; upto: number } | null {
  const exists = db.query("SELECT 1 FROM sqlite_schema WHERE name = 'keyword_index_rebuild'").get();
  return exists
    ? db.query<{ done: number; upto: number }, []>('SELECT done, upto FROM keyword_index_rebuild').get()
    : null;
}

function captureLog(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const at = (msg: string) => void lines.push(msg);
  return { lines, debug: at, info: at, warn: at, error: at };
}

describe('the stemmed keyword index on a store of the previous release', () => {
  it('finds every passage of the old store, by its own word and by another form of it', async () => {
    const db = openDatabase(fixtureCopy(), Date.now());
    const store = openSqliteStore(db);
    const accountId = accountOf(db);
    const passages = db
      .query<{ id: number; containerId: string; text: string }, []>(
        "SELECT id, container_id AS containerId, coalesce(title, '') || ' ' || content AS text FROM passages ORDER BY id",
      )
      .all();
    expect(passages.length).toBe(37);
    const words = (text: string) => [...new Set(text.toLowerCase().match(/[a-z]+/g) ?? [])];
    const frequency = new Map<string, number>();
    for (const p of passages) for (const w of words(p.text)) frequency.set(w, (frequency.get(w) ?? 0) + 1);
    for (const p of passages) {
      // Its rarest word that a plural "s" inflects without changing the stem (see Porter's step 1a).
      const word = words(p.text)
        .filter((w) => w.length >= 4 && !/(s|ie)$/.test(w))
        .sort((a, b) => frequency.get(a)! - frequency.get(b)! || a.localeCompare(b))[0]!;
      expect({ word, hits: (await found(store, accountId, p.containerId, word)).includes(p.id) }).toEqual({
        word,
        hits: true,
      });
      expect({
        word: `${word}s`,
        hits: (await found(store, accountId, p.containerId, `${word}s`)).includes(p.id),
      }).toEqual({ word: `${word}s`, hits: true });
    }
    await store.close();
  });

  it('matches stems: run finds running and runs, city finds cities', async () => {
    const db = openDatabase(fixtureCopy(), Date.now());
    const store = openSqliteStore(db);
    const accountId = accountOf(db);
    const text = (ids: number[]) =>
      db
        .query<{ content: string }, []>(
          `SELECT content FROM passages WHERE id IN (${ids.join(',') || 'NULL'}) ORDER BY id`,
        )
        .all()
        .map((r) => r.content);
    const personalRun = text(await found(store, accountId, CREDENTIALS.containers.Personal, 'run'));
    expect(personalRun.some((c) => c.startsWith('I went running'))).toBe(true);
    expect(personalRun.some((c) => c.startsWith('Maya runs'))).toBe(true);
    expect(personalRun.some((c) => c.startsWith('Prefers running'))).toBe(true);
    const workRun = text(await found(store, accountId, CREDENTIALS.containers.Work, 'running'));
    expect(workRun.some((c) => c.startsWith('The payments team runs'))).toBe(true);
    expect(workRun.some((c) => c.startsWith('Runs the weekly architecture review'))).toBe(true);
    const city = text(await found(store, accountId, CREDENTIALS.containers.Personal, 'city'));
    expect(city.some((c) => c.startsWith('Cities I want to visit'))).toBe(true);
    expect(city.some((c) => c.startsWith('The city library'))).toBe(true);
    expect(city.some((c) => c.startsWith('Has lived in four cities'))).toBe(true);
    // Stopwords are still left out of the query: "the" alone would match nearly every passage.
    expect(text(await found(store, accountId, CREDENTIALS.containers.Personal, 'the cooking'))).toEqual([
      'Grandmother cooked saffron rice with barberries for every family birthday.',
      'Cooking classes at the Ostrava community kitchen start again in January.',
    ]);
    await store.close();
  });

  it('reindexes a small store inside the migration, leaving no trace of the old index', () => {
    const db = openDatabase(fixtureCopy(), Date.now());
    expect(pending(db)).toBeNull();
    expectSwitched(db);
    db.close();
  });

  it('gives a fresh store the stemmed index at once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'engram-fts-'));
    dirs.push(dir);
    const db = openDatabase(dir, Date.now());
    expect(pending(db)).toBeNull();
    expectSwitched(db);
    db.close();
  });
});

describe('the online rebuild of a larger store', () => {
  it('leaves a store past the inline limit to the background, searching the old index meanwhile', async () => {
    const dir = fixtureCopy();
    growOldStore(dir, INLINE_REBUILD_MAX + 100);
    const db = openDatabase(dir, Date.now());
    expect(pending(db)).toEqual({ done: 0, upto: INLINE_REBUILD_MAX + 100 + 38 });
    const store = openSqliteStore(db);
    const accountId = accountOf(db);
    expect((await found(store, accountId, CREDENTIALS.containers.Personal, 'running')).length).toBe(2);
    expect(await found(store, accountId, CREDENTIALS.containers.Personal, 'run')).toEqual([]);
    await store.close();
  }, 60_000);

  it('rebuilds while searches and writes go on, then switches and drops the old index', async () => {
    const dir = grownCopy();
    const worker = openDatabase(dir, Date.now());
    // The server's connection: searches and writes through it while the worker's rebuilds.
    const db = openDatabase(dir, Date.now());
    const store = openSqliteStore(db);
    const accountId = accountOf(db);
    const work = CREDENTIALS.containers.Work;
    const log = captureLog();
    const batch = 1_000; // fewer, larger batches than the server's: the same paths, a quicker test
    const rebuild = new KeywordIndexRebuild(worker, log, batch);
    const { upto } = pending(db)!;
    const grown = new Map(
      db
        .query<{ id: number; content: string }, []>("SELECT id, content FROM passages WHERE content LIKE 'Entry t%'")
        .all()
        .map((r) => [Number(/t(\d+)z/.exec(r.content)![1]), r.id]),
    );
    const idOf = (i: number) => grown.get(i)!;
    const insert = db.prepare('INSERT INTO passages (account_id, container_id, position, content) VALUES (?, ?, 0, ?)');
    let steps = 0;
    let added = 0;
    let writes = { updatedDone: 0, updatedAhead: 0, deletedDone: 0, deletedAhead: 0 };
    while (rebuild.step()) {
      steps++;
      const p = pending(db);
      if (p && p.done < upto) {
        // Keyword search answers from the old index: unstemmed, yet complete.
        expect(await found(store, accountId, work, 't12345z')).toEqual([idOf(12345)]);
        expect(await found(store, accountId, work, 'walk')).toEqual([]);
        // Writes on both sides of the mark, and new passages past the end.
        const ahead = Math.min(LARGE - 1, p.done + 5_000);
        const behind = Math.max(0, p.done - 100);
        if (steps === 3) {
          writes = { ...writes, updatedDone: idOf(behind), updatedAhead: idOf(ahead) };
          db.run("UPDATE passages SET content = 'Entry rewritten: swimmers at the lido.' WHERE id = ?", [
            writes.updatedDone,
          ]);
          db.run("UPDATE passages SET content = 'Entry rewritten: cyclists on the bridge.' WHERE id = ?", [
            writes.updatedAhead,
          ]);
        }
        if (steps === 5) {
          writes = { ...writes, deletedDone: idOf(behind), deletedAhead: idOf(ahead) };
          db.run('DELETE FROM passages WHERE id IN (?, ?)', [writes.deletedDone, writes.deletedAhead]);
        }
        insert.run(accountId, work, `Added during the rebuild: gardeners number ${added++}.`);
      }
    }
    expect(steps).toBeGreaterThan(LARGE / batch);
    expect(log.lines[0]).toBe('keyword search uses the old index while the stemmed one is rebuilt in the background');
    expect(log.lines.at(-1)).toBe('keyword search switched to the stemmed index; the old index is dropped');
    expectSwitched(db);
    // Stemmed now, and every write made meanwhile is in the index once, as it stands.
    expect((await found(store, accountId, work, 'walk')).length).toBe(100);
    expect(await found(store, accountId, work, 'swimmer')).toEqual([writes.updatedDone]);
    expect(await found(store, accountId, work, 'cyclist')).toEqual([writes.updatedAhead]);
    expect((await found(store, accountId, work, 'gardener')).length).toBe(Math.min(added, 100));
    for (const id of [writes.deletedDone, writes.deletedAhead]) {
      expect(db.query('SELECT 1 FROM passages_fts WHERE rowid = ?').get(id)).toBeNull();
    }
    expect(await found(store, accountId, work, 't777z')).toEqual([idOf(777)]);
    expect(await found(store, accountId, work, `t${LARGE - 1}z`)).toEqual([idOf(LARGE - 1)]);
    // Writes after the switch keep the index current through the final triggers.
    insert.run(accountId, work, 'Written after the switch: painters.');
    expect((await found(store, accountId, work, 'painter')).length).toBe(1);
    db.run("INSERT INTO passages_fts (passages_fts, rank) VALUES ('integrity-check', 1)");
    // A second rebuild (another start) finds nothing to do and says which index is in use.
    const again = captureLog();
    expect(new KeywordIndexRebuild(worker, again).step()).toBe(false);
    expect(again.lines).toEqual(['keyword search uses the stemmed index']);
    worker.close();
    await store.close();
  }, 60_000);

  it('resumes where a stopped rebuild left off, between batches', () => {
    const dir = grownCopy();
    const first = openDatabase(dir, Date.now());
    const rebuild = new KeywordIndexRebuild(first, captureLog(), 700);
    for (let i = 0; i < 10; i++) expect(rebuild.step()).toBe(true);
    const { done } = pending(first)!;
    expect(first.query<{ n: number }, [number]>('SELECT count(*) AS n FROM passages WHERE id <= ?').get(done)!.n).toBe(
      7_000,
    );
    first.close();
    const second = openDatabase(dir, Date.now());
    expect(pending(second)!.done).toBe(done);
    while (new KeywordIndexRebuild(second, captureLog()).step());
    expectSwitched(second);
    second.close();
  }, 60_000);

  it('resumes after the rebuilding process is killed with SIGKILL, losing and doubling nothing', async () => {
    const dir = grownCopy();
    openDatabase(dir, Date.now()).close(); // the migration, at a start
    const child = Bun.spawn([process.execPath, join(import.meta.dir, 'keyword-rebuild-child.ts'), dir, '200'], {
      stdout: 'pipe',
      stderr: 'inherit',
    });
    let marks = 0;
    const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
    while (marks < 20) {
      const { value, done } = await reader.read();
      if (done) break;
      marks += value.filter((byte) => byte === 10).length; // a line a committed batch
    }
    child.kill('SIGKILL');
    expect(await child.exited).not.toBe(0);
    const db = openDatabase(dir, Date.now());
    const mark = pending(db)!;
    expect(mark.done).toBeGreaterThanOrEqual(20 * 200);
    expect(mark.done).toBeLessThan(mark.upto);
    // What the killed process committed is in the new index, once each: exactly the passages up to the mark.
    const copied = db.query<{ n: number }, []>('SELECT count(*) AS n FROM passages_stem_fts_docsize').get()!.n;
    expect(copied).toBe(
      db.query<{ n: number }, [number]>('SELECT count(*) AS n FROM passages WHERE id <= ?').get(mark.done)!.n,
    );
    while (new KeywordIndexRebuild(db, captureLog()).step());
    expectSwitched(db);
    db.close();
  }, 60_000);
});

describe('the real server on a store of the previous release', () => {
  it('answers keyword searches during the rebuild and finds stemmed matches once it is done', async () => {
    const dir = grownCopy();
    dirs.pop(); // the test server removes it at close, after sweeping it for secrets
    const server = await startTestServer({ dataDir: dir, manualLearning: false, env: { ENGRAM_EMBEDDER: 'none' } });
    try {
      const watch = new Database(join(dir, 'engram.db'), { readonly: true });
      const search = async (q: string, container: string) => {
        const answer = await call(server, 'POST', '/v1/search', CREDENTIALS.key, { q, container, limit: 20 });
        expect(answer.status).toBe(200);
        return (answer.body.results as { content: string }[]).map((r) => r.content);
      };
      const first = await search('run', CREDENTIALS.containers.Personal);
      expect(pending(watch)).not.toBeNull(); // so that answer came during the rebuild, from the old index
      expect(first.some((c) => c.startsWith('I went running'))).toBe(false);
      const added = await call(server, 'POST', '/v1/documents', CREDENTIALS.key, {
        container: CREDENTIALS.containers.Personal,
        content: 'Took up kayaking on the canal.',
      });
      expect(added.status).toBe(202);
      let hits: string[] = [];
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(50)) {
        hits = await search('run', CREDENTIALS.containers.Personal);
        if (hits.some((c) => c.startsWith('I went running'))) break;
      }
      expect(hits.some((c) => c.startsWith('I went running'))).toBe(true);
      expect(pending(watch)).toBeNull();
      // Learning and the rebuild take turns on the worker: the document may be learned a round later.
      const documentId = (added.body as { id: string }).id;
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; await Bun.sleep(50)) {
        if ((await call(server, 'GET', `/v1/documents/${documentId}`, CREDENTIALS.key)).body.learned) break;
      }
      expect(await search('kayaks', CREDENTIALS.containers.Personal)).toEqual(['Took up kayaking on the canal.']);
      watch.close();
    } finally {
      await server.close();
    }
  }, 60_000);
});

/**
 * What the SQLite store adds to the repository contract (test/storage/contract/): one connection
 * shared by a thread's requests, kept whole by its lock, and work that waits for a commit.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { drizzle } from 'drizzle-orm/bun-sqlite';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { newId } from '../../src/ids';
import { completeDocument, insertDocument } from '../../src/learning/queue';
import { createLogger } from '../../src/log';
import { readyJobs } from '../../src/storage/sqlite/jobs-repository';
import { KeywordReader } from '../../src/storage/sqlite/keyword-reader';
import { DB_FILE, openDatabase, PAGE_CACHE_KIB } from '../../src/storage/sqlite/open';
import { PASSAGE_HIT_ROWS } from '../../src/storage/sqlite/passages-repository';
import { openSqliteStore, type SqliteStore } from '../../src/storage/sqlite/sqlite-store';
import { scratchDir } from '../helpers/scratch';

let dir: string;
let store: SqliteStore;
const accountId = 'acc_sqlite';
const containerId = 'ctr_sqlite';

beforeEach(async () => {
  dir = scratchDir();
  store = openSqliteStore(openDatabase(dir, Date.now()));
  await store.accounts.insert({ id: accountId, email: 'sqlite@example.org', passwordHash: '-', createdAt: 0 });
  await store.containers.insert({
    id: containerId,
    accountId,
    name: 'notes',
    description: '',
    createdAt: 0,
    updatedAt: 0,
  });
});
afterEach(() => store.close());

const container = (name: string) => ({
  id: newId('ctr'),
  accountId,
  name,
  description: '',
  createdAt: 0,
  updatedAt: 0,
});
const names = async () => (await store.containers.list(accountId)).map((c) => c.name);

describe('the connection lock', () => {
  it('runs what waited for a transaction in the order it came, transactions and statements alike', async () => {
    const order: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const first = store.transaction(async (tx) => {
      await tx.containers.insert(container('first'));
      await held;
      order.push('first ends');
    });
    // Each records when it runs (a statement's answer comes a turn later than it runs).
    const waiting = [
      store.withConnection(() => order.push('a statement')),
      store.containers.insert(container('a write')),
      store.transaction(async (tx) => {
        order.push('second begins');
        await tx.containers.insert(container('second'));
      }),
      store.containers.list(accountId),
      store.withConnection((raw) => order.push(`a statement, in a transaction: ${raw.inTransaction}`)),
    ] as const;
    await Bun.sleep(10);
    expect(order).toEqual([]);
    release();
    await first;
    const [, , , read] = await Promise.all(waiting);
    expect(order).toEqual(['first ends', 'a statement', 'second begins', 'a statement, in a transaction: false']);
    // Stored in the order they came, and the read after the second transaction saw it.
    expect(await names()).toEqual(['notes', 'first', 'a write', 'second']);
    expect(read.map((c) => c.name)).toEqual(['notes', 'first', 'a write', 'second']);
  });

  it('answers a call at once, in the same turn, while no transaction holds the connection', async () => {
    const insert = store.containers.insert(container('at once'));
    // Already written when the call returns: the promise only carries the answer.
    const raw = new (await import('bun:sqlite')).Database(join(dir, DB_FILE), { readonly: true });
    try {
      expect(raw.query('SELECT name FROM containers WHERE name = ?').get('at once')).toEqual({ name: 'at once' });
    } finally {
      raw.close();
    }
    await insert;
  });

  it('frees the connection when a transaction fails, and when the statement of one waiting fails', async () => {
    const failing = store.transaction(async (tx) => {
      await tx.containers.insert(container('rolled back'));
      await Bun.sleep(5);
      throw new Error('no');
    });
    const clash = store.containers.insert({ ...container('notes') });
    const [failed, clashed] = await Promise.allSettled([failing, clash]);
    expect(failed).toMatchObject({ status: 'rejected', reason: new Error('no') });
    expect(clashed).toMatchObject({ status: 'rejected', reason: expect.objectContaining({ name: 'UniqueViolation' }) });
    expect(await names()).toEqual(['notes']);
  });
});

/** A document learned as `texts`, one passage each; its id and its passages' ids. */
async function learned(...texts: string[]): Promise<{ documentId: string; passageIds: number[] }> {
  const { document } = await insertDocument(store, {
    id: newId('doc'),
    accountId,
    containerId,
    title: null,
    content: texts.join('\n\n'),
    url: null,
    customId: null,
    metadata: null,
    status: 'queued',
    error: null,
    createdAt: 0,
    updatedAt: 0,
    learnedAt: null,
  });
  const [job] = await store.jobs.claim(1, 1);
  const passages = texts.map((content, position) => ({ position, title: null, content }));
  return { documentId: document.id, passageIds: await completeDocument(store, job!, passages, null, 1) };
}

describe('work after the commit', () => {
  it("truncates the WAL after a forgetting made inside a caller's transaction, once that commits", async () => {
    const document = { id: (await learned('The secret word is zorblatt.')).documentId };
    const wal = join(dir, `${DB_FILE}-wal`);
    expect(statSync(wal).size).toBeGreaterThan(0);
    await store.transaction(async (tx) => {
      await tx.forgetting.forget(accountId, { documentId: document.id }, []);
      // Not inside the transaction: a checkpoint there could not clear the frames that hold the text.
      expect(statSync(wal).size).toBeGreaterThan(0);
    });
    expect(statSync(wal).size).toBe(0);
  });
});

/**
 * Waits for SQLite to remove the WAL of `storeDir` once every connection to it has closed, which
 * is when what drizzle prepared is collected. A collection may keep what the stack still points at:
 * a few, a moment apart, for up to 10 s (20 in 200 ms were too few once in a full suite run beside
 * other work, at load 7; 100 in 2 s once in CI, two files at a time).
 */
async function walGone(storeDir: string): Promise<void> {
  // Bounded by time, not by rounds: on a slow host 500 rounds of collection ended within 13 s.
  const deadline = performance.now() + 20_000;
  while (performance.now() < deadline && existsSync(join(storeDir, `${DB_FILE}-wal`))) {
    Bun.gc(true);
    await Bun.sleep(20);
  }
}

describe('keyword search on a reader thread', () => {
  const reopen = async (lines: string[] = []) => {
    await store.close();
    store = openSqliteStore(openDatabase(dir, Date.now()), {
      keywordReader: createLogger('warn', (l) => lines.push(l)),
    });
  };
  const search = (q: string) => store.passages.search(accountId, [containerId], q, 10);

  it("answers while a transaction holds the store's connection, from the last commit, and closes with the store", async () => {
    await reopen();
    const { documentId } = await learned('Bees swarmed in the orchard.', 'The orchard gate is green.');
    const pear = await learned('A pear tree by the gate.');
    await store.forgetting.forget(accountId, { documentId }, []);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const writing = store.transaction(async (tx) => {
      await tx.forgetting.forget(accountId, { documentId: pear.documentId }, []);
      await held;
    });
    // On the store's connection the search would wait for the transaction to end.
    const answer = await Promise.race([search('orchard gate pear'), Bun.sleep(2000).then(() => 'waited')]);
    release();
    await writing;
    // The forgotten document's passages are not found; the pear's, deleted but not committed yet, are.
    expect(answer).toEqual([{ passageId: pear.passageIds[0]!, score: expect.any(Number) }]);
    expect(await search('pear')).toEqual([]);
    await store.close();
    // The reader's connection closed too: SQLite removes the WAL when the last one closes.
    await walGone(dir);
    expect(existsSync(join(dir, `${DB_FILE}-wal`))).toBe(false);
    store = openSqliteStore(openDatabase(dir, Date.now()));
  });

  it('runs a search taken back before its thread began it here, and the thread answers the next itself', async () => {
    await learned('Bees swarmed in the orchard.');
    const expected = await search('bees');
    expect(expected).toHaveLength(1);
    const reader = new KeywordReader(join(dir, DB_FILE), createLogger('warn'));
    let here = 0;
    const inThread = () => {
      here++;
      return search('bees');
    };
    const bees = { accountId, containerIds: [containerId], query: 'bees', limit: 10 };
    // The thread is still starting (loading its code, opening its connection): the query waits in its port.
    const taken = reader.search(bees, inThread);
    reader.takeBack();
    expect(here).toBe(1);
    expect(await taken).toEqual(expected);
    // The thread skips the query taken back, and answers the next one itself.
    expect(await reader.search(bees, inThread)).toEqual(expected);
    expect(here).toBe(1);
    await reader.close();
  });

  it("answers on the store's connection once its thread has died, the searches it held too", async () => {
    const lines: string[] = [];
    await reopen(lines);
    await learned('Bees swarmed in the orchard.');
    const expected = await search('bees');
    expect(expected).toHaveLength(1);
    // A read-only connection cannot open a file that does not exist: the thread throws at its start.
    const reader = new KeywordReader(
      join(dir, 'missing.db'),
      createLogger('warn', (l) => lines.push(l)),
    );
    const held = reader.search({ accountId, containerIds: [containerId], query: 'bees', limit: 10 }, () =>
      search('bees'),
    );
    expect(await held).toEqual(expected);
    expect(
      await reader.search({ accountId, containerIds: [containerId], query: 'bees', limit: 10 }, () => search('bees')),
    ).toEqual(expected);
    await reader.close();
    expect(lines.map((l) => JSON.parse(l).msg)).toEqual([
      'the keyword reader thread stopped; keyword search runs on the request thread',
    ]);
  });
});

describe('closing', () => {
  it('closes the connection: SQLite removes the store side files once what drizzle prepared is collected', async () => {
    const other = openSqliteStore(openDatabase(join(dir, 'other'), Date.now()));
    await other.transaction(async (tx) => tx.settings.set('closing', '1'));
    expect(existsSync(join(dir, 'other', `${DB_FILE}-wal`))).toBe(true);
    await other.close();
    await walGone(join(dir, 'other'));
    expect(existsSync(join(dir, 'other', `${DB_FILE}-wal`))).toBe(false);
    expect(existsSync(join(dir, 'other', `${DB_FILE}-shm`))).toBe(false);
  }, 15_000);
});

describe('the record of deleted passages', () => {
  it('names every passage deleted, by any connection, in order, until pruned', async () => {
    const first = await learned('Tomatoes are sown in March.', 'Beans go out in May.');
    const second = await learned('The shed roof leaks.');
    expect(await store.removals!.since(0, 10)).toEqual([]);
    // Another connection (another process, such as `engram import`) forgets the first document.
    const other = openSqliteStore(openDatabase(dir, Date.now()));
    await other.forgetting.forget(accountId, { documentId: first.documentId }, []);
    await other.close();
    await store.forgetting.forget(accountId, { documentId: second.documentId }, []);
    const removed = await store.removals!.since(0, 10);
    expect(removed.map((r) => r.passageId)).toEqual([...first.passageIds, ...second.passageIds]);
    expect((await store.removals!.since(removed[0]!.seq, 1)).map((r) => r.passageId)).toEqual([first.passageIds[1]!]);
    await store.removals!.prune(removed[1]!.seq);
    expect(await store.removals!.since(0, 10)).toEqual([removed[2]!]);
    // Numbers are never used again, even once every one is pruned.
    await store.removals!.prune(removed[2]!.seq);
    const third = await learned('The hose is in the garage.');
    await store.forgetting.forget(accountId, { documentId: third.documentId }, []);
    expect((await store.removals!.since(0, 10))[0]!.seq).toBeGreaterThan(removed[2]!.seq);
  });
});

describe('claiming jobs', () => {
  it('reads the ready jobs from their index in claim order, without sorting every ready job', () => {
    const raw = openDatabase(scratchDir(), Date.now());
    try {
      const query = readyJobs(drizzle(raw), 1_000, 8, 'index').toSQL();
      const plan = raw
        .query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN ${query.sql}`)
        .all(...(query.params as (string | number)[]))
        .map((row) => row.detail);
      // With a million jobs queued, a sort of every ready one took 0.1 s a claim.
      expect(plan.join(' | ')).toContain('USING INDEX jobs_ready');
      expect(plan.join(' | ')).not.toContain('TEMP B-TREE');
    } finally {
      raw.close();
    }
  });
});

describe('reading search hits back', () => {
  it("reads a hit's document custom id from an index, never from the document's row after its content", () => {
    const raw = openDatabase(scratchDir(), Date.now());
    try {
      const plan = raw
        .query<{ detail: string }, [string, number]>(
          `EXPLAIN QUERY PLAN ${PASSAGE_HIT_ROWS} WHERE p.account_id = ? AND p.id IN (?)`,
        )
        .all(accountId, 1)
        .map((row) => row.detail);
      // An imported conversation's row spans overflow pages before its custom id: at 100,000 passages
      // walking them was three quarters of reading a search's candidates.
      expect(plan.filter((step) => step.includes('USING COVERING INDEX documents_custom_ids'))).toHaveLength(2);
    } finally {
      raw.close();
    }
  });
});

describe('the page cache', () => {
  it("holds the keyword index's sizes table of a million passages, which keyword search reads whole", () => {
    const raw = openDatabase(scratchDir(), Date.now());
    try {
      const { cache } = raw.query<{ cache: number }, []>('SELECT cache_size AS cache FROM pragma_cache_size').get()!;
      // Negative: KiB. The sizes table is 11 MiB at 974,800 passages; SQLite's default is 2 MiB.
      expect(-cache).toBe(PAGE_CACHE_KIB);
      expect(-cache).toBeGreaterThanOrEqual(16 * 1024);
    } finally {
      raw.close();
    }
  });
});

describe('learning a chat turn', () => {
  it("writes the turn's context in its passage's insert: only the turn before it has its keyword entry rewritten", async () => {
    const rewritten = () =>
      store.withConnection((raw) =>
        raw
          .query<{ id: number }, []>('SELECT id FROM temp.rewritten')
          .all()
          .map((r) => r.id),
      );
    // Each rewrite of a context is a replace of the passage's entry with secure-delete, ~15 ms at 100,000 passages.
    await store.withConnection((raw) => {
      raw.run('CREATE TEMP TABLE rewritten (id INTEGER)');
      raw.run(
        'CREATE TEMP TRIGGER context_rewritten AFTER UPDATE OF context ON main.passages BEGIN INSERT INTO rewritten VALUES (new.id); END',
      );
    });
    const say = async (content: string) => (await learned(content)).passageIds[0]!;
    const question = await say('[3 May 2024, 18:02] Ann: How did the appointment with the vet go?');
    expect(await rewritten()).toEqual([]);
    const reply = await say('[3 May 2024, 18:09] Bo: Sprained paw, nothing broken.');
    expect(await rewritten()).toEqual([question]);
    const contexts = await store.withConnection((raw) =>
      raw.query<{ id: number; context: string | null }, []>('SELECT id, context FROM passages ORDER BY id').all(),
    );
    expect(contexts).toEqual([
      { id: question, context: 'sprained paw nothing broken' },
      { id: reply, context: 'how did the appointment with the vet go' },
    ]);
  });
});

/**
 * What only the PostgreSQL store does, on a real server (test/helpers/postgres.ts): the vector change
 * feed (read since a commit, removals, commit order, the notification another connection hears),
 * the VACUUM after a forgetting, and migrations with several processes and a newer release.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { newId } from '../../src/ids';
import { completeDocument, insertDocument } from '../../src/learning/queue';
import { NewerStoreError } from '../../src/storage/newer-store';
import { openPostgresStore, type PostgresStore } from '../../src/storage/postgres/postgres-store';
import type { Store } from '../../src/storage/store';
import type { VectorChange } from '../../src/storage/vector-feed';
import { postgresOrSkip } from '../helpers/postgres';

const server = postgresOrSkip('PostgreSQL store cases');
const ACCOUNT = 'acc_feed';
const CONTAINER = 'ctr_feed';
const unit = (x: number) => new Float32Array([x, Math.sqrt(1 - x * x)]);

/** A document learned with `n` passages; returns their ids. */
async function learned(store: Store, n: number): Promise<number[]> {
  const id = newId('doc');
  await insertDocument(store, {
    id,
    accountId: ACCOUNT,
    containerId: CONTAINER,
    title: null,
    content: 'x',
    url: null,
    customId: null,
    metadata: null,
    status: 'queued',
    error: null,
    createdAt: 1,
    updatedAt: 1,
    learnedAt: null,
  });
  const [job] = (await store.jobs.claim(2, 100)).filter((j) => j.documentId === id);
  const passages = Array.from({ length: n }, (_, position) => ({
    position,
    title: null,
    content: `passage ${position} of ${id}`,
  }));
  return completeDocument(
    store,
    job!,
    passages,
    passages.map(() => [unit(0.6), unit(0.8)]),
    3,
  );
}

/** A feed's changes since a commit, which must not have been pruned. */
async function since(store: PostgresStore, after: number, commits: number): Promise<VectorChange[]> {
  const changes = await store.vectorFeed.since(after, commits);
  if (!changes) throw new Error(`the feed was pruned past commit ${after}`);
  return changes;
}
const summary = (changes: VectorChange[]) => changes.map((c) => `${c.removed ? '-' : '+'}${c.passageId}/${c.tier}`);

if (server) {
  describe('the PostgreSQL store', () => {
    let url: string;
    let store: PostgresStore;
    let other: PostgresStore;
    beforeEach(async () => {
      url = await server.createDatabase();
      store = await openPostgresStore(url, { max: 4 });
      other = await openPostgresStore(url, { max: 4 });
      await store.accounts.insert({ id: ACCOUNT, email: 'feed@example.org', passwordHash: '-', createdAt: 0 });
      await store.containers.insert({
        id: CONTAINER,
        accountId: ACCOUNT,
        name: 'feed',
        description: '',
        createdAt: 0,
        updatedAt: 0,
      });
    });
    afterEach(async () => {
      await store.close();
      await other.close();
    });

    describe('the vector change feed', () => {
      it('gives the vectors stored and removed since a commit, in commit order, as another process wrote them', async () => {
        const start = await store.vectorFeed.head();
        const first = await learned(other, 2);
        const afterFirst = await store.vectorFeed.head();
        expect(afterFirst).toBeGreaterThan(start);
        expect(summary(await since(store, start, 100))).toEqual(first.map((id) => `+${id}/fast`));

        // Replaced vectors read as removed, then stored; a forgotten passage as removed.
        await other.vectors.put('fast', [{ passageId: first[0]!, vectors: [unit(0.1)] }]);
        const doc = (await other.passages.getHits(ACCOUNT, [first[1]!]))[0]!.documentId!;
        await other.forgetting.forget(ACCOUNT, { documentId: doc }, []);
        const changes = await since(store, afterFirst, 100);
        expect(summary(changes)).toEqual([
          `-${first[0]}/fast`,
          `+${first[0]}/fast`,
          ...[...first].sort((a, b) => a - b).map((id) => `-${id}/fast`),
        ]);
        expect(new Set(changes.map((c) => c.commit)).size).toBe(2);
        // Read a commit at a time, and nothing after the last.
        expect(new Set((await since(store, afterFirst, 1)).map((c) => c.commit)).size).toBe(1);
        expect(await since(store, await store.vectorFeed.head(), 100)).toEqual([]);
        // A tier's vectors dropped for a new model read as removed too.
        const [kept] = await learned(other, 1);
        const beforeModel = await store.vectorFeed.head();
        await other.vectors.setModel('fast', { id: 'another-model', dimensions: 2 });
        expect(summary(await since(store, beforeModel, 100))).toEqual([`-${kept}/fast`]);
      });

      it('prunes its oldest commits, keeping the newest, and says so to a follower behind the floor', async () => {
        const start = await store.vectorFeed.head();
        // A document learned is one commit.
        await learned(other, 2);
        await learned(other, 1);
        const [c] = await learned(other, 1);
        const head = await store.vectorFeed.head();
        expect(head - start).toBe(3);
        expect(await store.vectorFeed.prune(1)).toBe(head - 1);
        // Nothing more to prune; the head stands.
        expect(await other.vectorFeed.prune(1)).toBe(0);
        expect(await store.vectorFeed.head()).toBe(head);
        expect(await store.vectorFeed.since(start, 100)).toBeNull();
        expect(await store.vectorFeed.since(head - 2, 100)).toBeNull();
        expect(summary(await since(store, head - 1, 100))).toEqual([`+${c}/fast`]);
        expect(await since(store, head, 100)).toEqual([]);
        expect(await query(url, 'SELECT count(*)::int AS n FROM vector_changes')).toEqual([{ n: 1 }]);
        // Pruning all but none keeps the head: the floor counts.
        await store.vectorFeed.prune(0);
        expect(await store.vectorFeed.head()).toBe(head);
        expect(await since(store, head, 100)).toEqual([]);
      });

      it('numbers commits in the order they commit, so no commit appears below a number already read', async () => {
        const [a, b] = await learned(store, 2);
        const start = await store.vectorFeed.head();
        let stored!: () => void;
        const written = new Promise<void>((resolve) => (stored = resolve));
        let release!: () => void;
        const held = new Promise<void>((resolve) => (release = resolve));
        // Writes first, commits last.
        const slow = store.transaction(async (tx) => {
          await tx.vectors.put('fast', [{ passageId: a!, vectors: [unit(0.3)] }]);
          stored();
          await held;
        });
        await written;
        await other.vectors.put('fast', [{ passageId: b!, vectors: [unit(0.4)] }]);
        const seen = await since(store, start, 100);
        expect(summary(seen)).toEqual([`-${b}/fast`, `+${b}/fast`]);
        release();
        await slow;
        const later = await since(store, seen.at(-1)!.commit, 100);
        expect(summary(later)).toEqual([`-${a}/fast`, `+${a}/fast`]);
        expect(later[0]!.commit).toBeGreaterThan(seen[0]!.commit);
      });

      it('records nothing for a transaction rolled back', async () => {
        const [a] = await learned(store, 1);
        const start = await store.vectorFeed.head();
        await expect(
          store.transaction(async (tx) => {
            await tx.vectors.put('fast', [{ passageId: a!, vectors: [unit(0.5)] }]);
            throw new Error('rolled back');
          }),
        ).rejects.toThrow('rolled back');
        expect(await since(store, start, 100)).toEqual([]);
        expect(await store.vectorFeed.head()).toBe(start);
      });

      it("wakes a listener on another connection with each commit's number, once it commits", async () => {
        const heard: (number | null)[] = [];
        let woken!: () => void;
        let wake = new Promise<void>((resolve) => (woken = resolve));
        const listening = await other.vectorFeed.listen((commit) => {
          heard.push(commit);
          woken();
        });
        try {
          await learned(store, 1);
          await wake;
          expect(heard).toEqual([await store.vectorFeed.head()]);
          wake = new Promise<void>((resolve) => (woken = resolve));
          // Nothing is heard of a transaction until it commits.
          let release!: () => void;
          const held = new Promise<void>((resolve) => (release = resolve));
          const open = store.transaction(async (tx) => {
            await tx.vectors.setModel('fast', { id: 'next', dimensions: 2 });
            await held;
          });
          await Bun.sleep(100);
          expect(heard).toHaveLength(1);
          release();
          await open;
          await wake;
          expect(heard).toEqual([heard[0]!, await store.vectorFeed.head()]);
        } finally {
          await listening.close();
        }
      });
    });

    it('vacuums the tables a forgetting deleted from, once it commits', async () => {
      // Counted by the VACUUM itself: the dead rows' own statistics reach pg_stat only when the pooled
      // connections that deleted them flush theirs, which an idle one does seconds later.
      const before = await vacuumCounts(url);
      const ids = await learned(store, 3);
      const doc = (await store.passages.getHits(ACCOUNT, [ids[0]!]))[0]!.documentId!;
      await store.forgetting.forget(ACCOUNT, { documentId: doc }, []);
      await store.scrubbed();
      const after = await vacuumCounts(url);
      // The passage's words too: passage_keywords holds them stemmed, in its rows and its GIN index.
      for (const table of ['passages', 'passage_vectors', 'passage_keywords', 'documents'])
        expect({ table, vacuumed: after[table]! > (before[table] ?? 0) }).toEqual({ table, vacuumed: true });
    });

    describe("the exchange's backfill beside other processes", () => {
      it("holds a container's turns for the transaction that read them: another's relink waits for it", async () => {
        const [passage] = await learned(store, 1);
        const doc = (await store.passages.getHits(ACCOUNT, [passage!]))[0]!.documentId!;
        const read = Promise.withResolvers<void>();
        const release = Promise.withResolvers<void>();
        const batch = store.transaction(async (tx) => {
          expect((await tx.passages.turnsAfter(null, 10))!.window.map((d) => d.documentId)).toEqual([doc]);
          read.resolve();
          await release.promise;
        });
        await read.promise;
        let relinked = false;
        const relink = other.transaction(async (tx) => {
          await tx.passages.turnsAround(ACCOUNT, doc, 2);
          relinked = true;
        });
        await Bun.sleep(300);
        expect(relinked).toBe(false);
        release.resolve();
        await Promise.all([batch, relink]);
        expect(relinked).toBe(true);
      });

      it("lets one process at a time hold the backfill's mark; the others skip it meanwhile", async () => {
        await store.settings.set('exchange_backfill', '');
        const held = Promise.withResolvers<void>();
        const release = Promise.withResolvers<void>();
        const holding = store.transaction(async (tx) => {
          expect(await tx.settings.claim('exchange_backfill')).toBe('');
          held.resolve();
          await release.promise;
        });
        await held.promise;
        expect(await other.transaction((tx) => tx.settings.claim('exchange_backfill'))).toBeNull();
        release.resolve();
        await holding;
        expect(await other.transaction((tx) => tx.settings.claim('exchange_backfill'))).toBe('');
      });
    });

    describe('migrations', () => {
      /** This release's migrations, in order. */
      const MIGRATIONS = [
        '0001_init',
        '0002_shared_limits',
        '0003_vector_feed_floor',
        '0004_passage_keywords',
        '0005_import_file',
        '0006_fact_jobs',
        '0007_keyword_context',
        '0008_exchange_backfill',
      ];

      it('are applied once when several processes open a new database at the same time', async () => {
        const fresh = await server.createDatabase();
        const stores = await Promise.all([1, 2, 3].map(() => openPostgresStore(fresh, { max: 2 })));
        for (const s of stores) await s.close();
        const rows = await query(fresh, 'SELECT version FROM schema_migrations');
        expect(rows.map((r) => r.version)).toEqual(MIGRATIONS);
      });

      it('refuse a database a newer release migrated, and leave it as it is', async () => {
        await query(url, "INSERT INTO schema_migrations (version, applied_at) VALUES ('9999_from_a_newer_release', 0)");
        await expect(openPostgresStore(url)).rejects.toBeInstanceOf(NewerStoreError);
        expect(
          (await query(url, 'SELECT version FROM schema_migrations ORDER BY version')).map((r) => r.version),
        ).toEqual([...MIGRATIONS, '9999_from_a_newer_release']);
      });
    });
  });
}

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const sql = new SQL({ url, max: 1 });
  try {
    return [...(await sql.unsafe(text))];
  } finally {
    await sql.close();
  }
}

/** How many times each table was vacuumed by hand (autovacuum counts apart). */
async function vacuumCounts(url: string): Promise<Record<string, number>> {
  const rows = await query(url, 'SELECT relname, vacuum_count FROM pg_stat_user_tables');
  return Object.fromEntries(rows.map((r) => [r.relname as string, Number(r.vacuum_count)]));
}

/**
 * Search following a shared PostgreSQL store: two servers on one database, each with its own
 * in-memory vector indexes. What one learns is in the other's indexes within 1 s (woken by the
 * feed's notification), what one forgets is gone from the other's within 1 s, what landed while
 * the connection that listens was lost is applied once it is back, and a server started later
 * builds its indexes from the store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { createLogger } from '../../../src/log';
import { SearchActivity } from '../../../src/search/search-activity';
import { VectorIndexes } from '../../../src/search/vector-indexes';
import { postgresVectorFeed } from '../../../src/storage/postgres/vector-feed';
import type { VectorFeed } from '../../../src/storage/vector-feed';
import { scratchDir } from '../../helpers/scratch';
import { postgresOrSkip } from '../../helpers/postgres';
import {
  addAndLearn,
  call,
  makeContainer,
  makeKey,
  makeOwner,
  startTestServer,
  type TestServer,
} from '../../helpers/server';

const server = postgresOrSkip('search following a shared PostgreSQL store');

/** Polls `check` every 20 ms until it holds; returns the milliseconds it took, or throws after `withinMs`. */
async function within(withinMs: number, check: () => boolean): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > withinMs) throw new Error(`not within ${withinMs} ms`);
    await Bun.sleep(20);
  }
  return performance.now() - started;
}

if (server) {
  describe('search on a shared PostgreSQL store', () => {
    let url: string;
    let learner: TestServer;
    let replica: TestServer;
    let key: string;
    let container: string;
    const inIndex = (s: TestServer, passageId: number) =>
      s.services.indexes
        .nearest('fast', new Float32Array(256).fill(0.1), [container], 1000)
        .some((h) => h.passageId === passageId);
    /** The learned passage of a document, found by one of its words in the store (keyword search is the database's own). */
    const passageOf = async (word: string) => {
      const { store } = learner.services;
      const [hit] = await store.passages.search((await store.accounts.list())[0]!.id, [container], word, 1);
      return hit!.passageId;
    };

    const learn = (content: string) => addAndLearn(learner, key, container, content);

    beforeAll(async () => {
      url = await server.createDatabase();
      const env = { ENGRAM_DATABASE_URL: url };
      learner = await startTestServer({ env });
      replica = await startTestServer({ env, learning: false });
      const owner = (await makeOwner(learner)).token;
      container = await makeContainer(learner, owner, 'Garden');
      key = (await makeKey(learner, owner, { level: 'manage', all_views: true })).key;
    });
    afterAll(async () => {
      await replica?.close();
      await learner?.close();
    });

    it('finds on one server, within 1 s, what another learned; and not what it forgot', async () => {
      const added = await call(learner, 'POST', '/v1/documents', key, {
        container,
        content: 'The tomatoes ripen in the greenhouse by August.',
      });
      expect(added.status).toBe(202);
      await learner.learning.drain();
      const passage = await passageOf('tomatoes');
      const seen = await within(1000, () => inIndex(replica, passage));
      const found = await call(replica, 'POST', '/v1/search', key, { q: 'when do the tomatoes ripen', container });
      expect(found.body.results.map((r: any) => r.document_id)).toContain(added.body.id);

      expect((await call(learner, 'DELETE', `/v1/documents/${added.body.id}?confirm=true`, key)).status).toBe(200);
      const gone = await within(1000, () => !inIndex(replica, passage));
      const after = await call(replica, 'POST', '/v1/search', key, { q: 'when do the tomatoes ripen', container });
      expect(after.body.results).toEqual([]);
      console.log(
        `replica: learned passage indexed after ${seen.toFixed(0)} ms, forgotten one dropped after ${gone.toFixed(0)} ms`,
      );
    });

    it('catches up on what landed while its listening connection was lost', async () => {
      const admin = new SQL({ url, max: 1 });
      try {
        // Every LISTEN connection of both servers is cut; a commit lands before they are back.
        const cut =
          await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query ILIKE 'LISTEN%'`;
        expect(cut.length).toBeGreaterThan(0);
        const added = await call(replica, 'POST', '/v1/documents', key, {
          container,
          content: 'Prune the roses in February.',
        });
        expect(added.status).toBe(202);
        await learner.learning.drain();
        const passage = await passageOf('roses');
        await within(5000, () => inIndex(replica, passage));
      } finally {
        await admin.close();
      }
    });

    it('reads its indexes again from the store when the feed was pruned past it, and misses nothing', async () => {
      const forgotten = await learn('The plums are picked in September.');
      await learn('Water the beans every morning.');
      const [plums, beans] = [await passageOf('plums'), await passageOf('beans')];
      // A follower over the real feed, whose reads the test can hold back.
      const sql = new SQL({ url, max: 2 });
      const feed = postgresVectorFeed(sql);
      let release: () => void = () => {};
      let held: Promise<void> | null = null;
      const follower: VectorFeed = {
        ...feed,
        since: async (after, commits) => {
          await held;
          return feed.since(after, commits);
        },
      };
      const lines: string[] = [];
      const indexes = await VectorIndexes.open(
        learner.services.store,
        createLogger('warn', (l) => lines.push(l)),
        { fast: 256, strong: null },
        scratchDir(),
        new SearchActivity(),
        0,
        follower,
      );
      const has = (passage: number) =>
        indexes
          .nearest('fast', new Float32Array(256).fill(0.1), [container], 1000)
          .some((h) => h.passageId === passage);
      try {
        await indexes.loaded;
        expect([has(plums), has(beans)]).toEqual([true, true]);
        held = new Promise((resolve) => (release = resolve));
        expect((await call(learner, 'DELETE', `/v1/documents/${forgotten}?confirm=true`, key)).status).toBe(200);
        await learn('Sow the carrots in April.');
        const carrots = await passageOf('carrots');
        // Pruned to the newest commit: the follower's position, and the plums' removal, are below the floor.
        expect(await feed.prune(1)).toBeGreaterThan(0);
        release();
        await within(5000, () => has(carrots) && !has(plums));
        expect(has(beans)).toBe(true);
        expect(indexes.rereads).toBe(1);
        expect(lines.join('\n')).toContain('were read again from the store');
      } finally {
        release();
        await indexes.close();
        await sql.close();
      }
    });

    it('starts a restarted replica from its saved indexes, and catches up on what changed while it was down', async () => {
      await learn('Mulch the strawberries in May.');
      const pears = await learn('The pears keep in the cellar until Christmas.');
      const [strawberries, pearsPassage] = [await passageOf('strawberries'), await passageOf('pears')];
      let third = await startTestServer({ env: { ENGRAM_DATABASE_URL: url }, learning: false });
      try {
        await third.services.indexes.loaded;
        expect(third.services.indexes.restoredFrom).toBeNull();
        expect([inIndex(third, strawberries), inIndex(third, pearsPassage)]).toEqual([true, true]);
        await third.stop();
        // While it is down: one passage forgotten, one learned.
        expect((await call(learner, 'DELETE', `/v1/documents/${pears}?confirm=true`, key)).status).toBe(200);
        await learn('Net the currants against the birds.');
        const currants = await passageOf('currants');
        third = await third.restart();
        await third.services.indexes.loaded;
        expect(third.services.indexes.restoredFrom).toBeGreaterThan(0);
        expect(await Bun.file(third.logFile).text()).toContain('search indexes read as last saved');
        await within(1000, () => inIndex(third, currants) && !inIndex(third, pearsPassage));
        expect(inIndex(third, strawberries)).toBe(true);
      } finally {
        await third.close();
      }
    });

    it("builds a restarted replica's indexes from the store when its saved copy is below the feed's floor, or another database's", async () => {
      let third = await startTestServer({ env: { ENGRAM_DATABASE_URL: url }, learning: false });
      const feedSql = new SQL({ url, max: 1 });
      try {
        await third.services.indexes.loaded;
        await third.stop();
        const added = await call(learner, 'POST', '/v1/documents', key, {
          container,
          content: 'Lift the leeks in March.',
        });
        expect(added.status).toBe(202);
        await learner.learning.drain();
        const leeks = await passageOf('leeks');
        expect(await postgresVectorFeed(feedSql).prune(0)).toBeGreaterThan(0);
        third = await third.restart();
        await third.services.indexes.loaded;
        expect(third.services.indexes.restoredFrom).toBeNull();
        expect(inIndex(third, leeks)).toBe(true);
        // The same data directory on a new database: nothing of the other's is read.
        await third.stop();
        third = await third.restart({ env: { ENGRAM_DATABASE_URL: await server.createDatabase() } });
        await third.services.indexes.loaded;
        expect(third.services.indexes.restoredFrom).toBeNull();
        expect(third.services.indexes.count('fast')).toBe(0);
      } finally {
        await third.close();
        await feedSql.close();
      }
    });

    it("builds a later server's indexes from the store", async () => {
      const added = await call(replica, 'POST', '/v1/documents', key, {
        container,
        content: 'Compost the leaves in autumn.',
      });
      expect(added.status).toBe(202);
      await learner.learning.drain();
      const passage = await passageOf('compost');
      const later = await startTestServer({ env: { ENGRAM_DATABASE_URL: url }, learning: false });
      try {
        await later.services.indexes.loaded;
        expect(inIndex(later, passage)).toBe(true);
        await within(1000, () => inIndex(replica, passage));
      } finally {
        await later.close();
      }
    });
  });
}

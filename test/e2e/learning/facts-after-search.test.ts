/**
 * Search never waits for the language model, with the real learning thread and a local endpoint
 * answering as OpenAI-compatible servers do: a document is searchable while its facts still wait on
 * a model that takes 30 s a request, which /healthz and the Memory page call slow; a stop does not
 * wait for that answer, and the facts come after the next start. The real `engram serve`, killed
 * with SIGKILL while the model is answering, loses no fact and saves none twice; on a shared
 * PostgreSQL store, so does an `engram learn` process, whose facts' job another learner takes when
 * its lease ends.
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { ROOT, type Served, setUp, spawnServer } from '../../../bench/lib/engram-process';
import { type FakeModel, isCheck, sentenceFacts, startFakeModel } from '../../agent/fake-model';
import { postgresOrSkip } from '../../helpers/postgres';
import { addDocument, keyFor, makeAccount } from '../../helpers/rest';
import { scratchDir } from '../../helpers/scratch';
import { call, startTestServer, type TestServer } from '../../helpers/server';

/** Polls `check` every 50 ms until it holds, up to `ms`; returns whether it did. */
async function until(ms: number, check: () => Promise<boolean> | boolean): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
}

describe('a model that takes 30 s a document', () => {
  let model: FakeModel;
  let server: TestServer;
  let key: string;
  let owner: string;
  let chat: string;

  beforeAll(async () => {
    model = startFakeModel(async (req) => {
      await Bun.sleep(30_000);
      return sentenceFacts(req);
    });
    server = await startTestServer({
      manualLearning: false,
      env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'slow-model', ENGRAM_MODEL_RETRIES: '0' },
    });
    const account = await makeAccount(server, ['Chat']);
    owner = account.owner;
    chat = account.containers.Chat!;
    key = await keyFor(server, owner, { level: 'manage', all_views: true, profile: true });
  });
  afterAll(async () => {
    await server.close();
    await model.stop();
  });

  it('leaves the document searchable at once, says the model is slow, stops without waiting for it, and gets the facts after', async () => {
    const added = Date.now();
    const doc = await addDocument(server, key, { container: chat, content: 'My parrot is Kiwi.' });
    expect(await until(10_000, async () => (await call(server, 'GET', `/v1/documents/${doc}`, key)).body.learned)).toBe(
      true,
    );
    const searchableMs = Date.now() - added;
    const hits = (await call(server, 'POST', '/v1/search', key, { q: 'parrot Kiwi', container: chat })).body.results;
    expect(hits.map((h: any) => h.document_id)).toEqual([doc]);
    expect(await until(5_000, () => model.requests.some((r) => !isCheck(r)))).toBe(true);
    const learning = async () => (await call(server, 'GET', '/healthz', key)).body.learning;
    // Searchable while the model has not answered yet: its facts wait, apart from the queue.
    expect(await learning()).toMatchObject({ queue: 0, facts: { waiting: 1, failed: 0 } });
    expect(searchableMs).toBeLessThan(10_000);
    // After 10 s on one document the model is called slow.
    expect(await until(15_000, async () => (await learning()).model.state === 'slow')).toBe(true);
    const page = await (
      await fetch(`${server.url}/containers`, { headers: { cookie: `engram_session=${owner}` } })
    ).text();
    expect(page).toContain('Facts: 1 document waits for the language model (slow-model: ');
    expect(page).toContain('Every document is searchable already.');

    const stopping = Date.now();
    await server.stop();
    expect(Date.now() - stopping).toBeLessThan(5_000);
    // The facts' job was given back, not dropped: the next start asks again, and a quick model answers.
    model.fixture = sentenceFacts;
    server = await server.restart();
    expect(await until(15_000, async () => (await learning()).facts.waiting === 0)).toBe(true);
    const profile = (await call(server, 'GET', '/v1/profile', key)).body;
    expect(profile.dynamic.map((f: any) => [f.content, f.source.document_id])).toEqual([
      ['Their parrot is Kiwi.', doc],
    ]);
    expect((await learning()).model).toMatchObject({ state: 'ok', format: 'json_schema' });
  }, 60_000);
});

describe('SIGKILL while the model is answering', () => {
  const DOCUMENTS = 12;
  const KILLS = 3;
  let model: FakeModel;
  let dataDir: string;
  let served: Served | null = null;
  /** Requests the model has been sent and not yet answered. */
  let inFlight = 0;

  beforeAll(() => {
    model = startFakeModel(async (req) => {
      inFlight++;
      try {
        await Bun.sleep(300);
        return sentenceFacts(req);
      } finally {
        inFlight--;
      }
    });
    dataDir = scratchDir();
  });
  afterAll(async () => {
    served?.proc.kill('SIGKILL');
    await served?.proc.exited;
    await model.stop();
  });

  it('loses no fact and saves none twice', async () => {
    const env = { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'killed', ENGRAM_EMBEDDER: 'fast' };
    const { container, key } = setUp(dataDir, env);
    const log = join(scratchDir(), 'serve.log');
    const start = async () => (served = await spawnServer(dataDir, env, log));
    await start();
    // Long enough that each has a request of its own: a kill can land between any two.
    const filler = 'An ordinary day of errands, emails and a walk around the block before dinner. '.repeat(10);
    const docs: string[] = [];
    for (let i = 0; i < DOCUMENTS; i++) {
      const res = await call(served!, 'POST', '/v1/documents', key, {
        container,
        content: `${filler}My pet${i} is Name${i}.`,
      });
      expect(res.status).toBe(202);
      docs.push(res.body.id);
    }
    const asked = () => model.requests.filter((r) => !isCheck(r)).length;
    for (let kill = 1; kill <= KILLS; kill++) {
      // A few answers in, and one more being answered: kill there.
      const target = asked() + 2;
      expect(await until(20_000, () => asked() >= target && inFlight > 0)).toBe(true);
      await Bun.sleep(Math.random() * 250);
      served!.proc.kill('SIGKILL');
      await served!.proc.exited;
      await start();
    }
    const waiting = async () => (await call(served!, 'GET', '/healthz', key)).body.learning.facts.waiting as number;
    expect(await until(30_000, async () => (await waiting()) === 0)).toBe(true);
    served!.proc.kill('SIGTERM');
    await served!.proc.exited;
    served = null;

    const db = new Database(join(dataDir, 'engram.db'), { readonly: true });
    try {
      const facts = db
        .query<{ content: string; source_document_id: string }, []>(
          'SELECT content, source_document_id FROM memories ORDER BY content',
        )
        .all();
      const expected = docs.map((id, i) => ({ content: `Their pet${i} is Name${i}.`, source_document_id: id }));
      expect(facts).toEqual(expected.sort((a, b) => a.content.localeCompare(b.content)));
      expect(db.query("SELECT count(*) AS n FROM jobs WHERE kind = 'extract_facts' AND state != 'done'").get()).toEqual(
        {
          n: 0,
        },
      );
    } finally {
      db.close();
    }
    // A document was asked again only when a kill cut its answer off: at most once a kill.
    expect(asked()).toBeGreaterThanOrEqual(DOCUMENTS);
    expect(asked()).toBeLessThanOrEqual(DOCUMENTS + KILLS);
  }, 120_000);
});

const postgres = postgresOrSkip('an engram learn process killed while the model answers, on PostgreSQL');
if (postgres)
  describe('an engram learn process killed (kill -9) while the model answers, on a shared PostgreSQL store', () => {
    /** A lease short enough that the dead learner's job is free again within the test. */
    const LEASE_SECONDS = 3;
    let model: FakeModel;
    let replica: TestServer;
    const learners: ReturnType<typeof Bun.spawn>[] = [];
    /** The first extraction is held until the test lets it go: its learner is killed meanwhile. */
    const held = Promise.withResolvers<void>();

    beforeAll(async () => {
      let extractions = 0;
      model = startFakeModel(async (req) => {
        if (++extractions === 1) await held.promise;
        return sentenceFacts(req);
      });
      // A replica that learns nothing itself: the learners do.
      replica = await startTestServer({
        database: await postgres.createDatabase(),
        learning: false,
        env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'shared' },
      });
    });
    afterAll(async () => {
      for (const proc of learners) proc.kill('SIGKILL');
      await Promise.all(learners.map((p) => p.exited));
      held.resolve();
      await replica.close();
      await model.stop();
    });

    const learner = () => {
      const proc = Bun.spawn(
        [process.execPath, join(ROOT, 'src/main.ts'), 'learn', '--database', replica.database!, '--data', scratchDir()],
        {
          cwd: ROOT,
          env: {
            ...process.env,
            ENGRAM_EMBEDDER: 'fast',
            ENGRAM_LOG_LEVEL: 'warn',
            ENGRAM_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
            ENGRAM_MODEL_URL: model.url,
            ENGRAM_MODEL: 'shared',
            ENGRAM_MODEL_RETRIES: '0',
          },
          stdin: 'ignore',
          stdout: 'ignore',
          stderr: 'ignore',
        },
      );
      learners.push(proc);
      return proc;
    };

    it('a second learner takes the facts when the lease ends, and saves them once', async () => {
      const account = await makeAccount(replica, ['Chat']);
      const key = await keyFor(replica, account.owner, { level: 'manage', all_views: true, profile: true });
      const first = learner();
      const doc = await addDocument(replica, key, {
        container: account.containers.Chat!,
        content: 'My goat is Billy.',
      });
      const asked = () => model.requests.filter((r) => !isCheck(r)).length;
      expect(
        await until(20_000, async () => (await call(replica, 'GET', `/v1/documents/${doc}`, key)).body.learned),
      ).toBe(true);
      expect(await until(10_000, () => asked() === 1)).toBe(true);
      first.kill('SIGKILL');
      await first.exited;
      const learning = async () => (await call(replica, 'GET', '/healthz', key)).body.learning;
      expect((await learning()).facts).toEqual({ waiting: 1, failed: 0 });
      held.resolve();
      const second = learner();
      expect(await until(LEASE_SECONDS * 1000 + 20_000, async () => (await learning()).facts.waiting === 0)).toBe(true);
      const profile = (await call(replica, 'GET', '/v1/profile', key)).body;
      expect(profile.dynamic.map((f: any) => [f.content, f.source.document_id])).toEqual([
        ['Their goat is Billy.', doc],
      ]);
      expect(asked()).toBe(2);
      second.kill('SIGTERM');
      await second.exited;
    }, 60_000);
  });

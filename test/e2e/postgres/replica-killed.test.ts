/**
 * A replica of a shared PostgreSQL store saves its vector indexes while it rests, stamped with the
 * feed's commit they hold, so that a start after kill -9 reads that copy instead of building the
 * indexes from the store, then applies what changed since: passages learned meanwhile are found, and
 * passages forgotten meanwhile are not.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Served, spawnServer } from '../../../bench/lib/engram-process';
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

const server = postgresOrSkip('a replica killed after saving its indexes while it rested');

/** What a replica logs (at info) when a start reads its saved indexes instead of building them from the store. */
const READ = 'search indexes read as last saved; following the feed from their commit';

/** The saves a replica logged: the passages its fast index held, and the feed's commit they are stamped with. */
const savesIn = (log: string): { fast: number; commit: number }[] =>
  log
    .split('\n')
    .filter((line) => line.includes('"msg":"search indexes saved"'))
    .map((line) => JSON.parse(line));

/** Polls `check` every 50 ms until it holds, up to `ms`; returns whether it did. */
async function until(ms: number, check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() > deadline) return false;
    await Bun.sleep(50);
  }
}

if (server) {
  describe('a replica killed with -9 after resting', () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-replica-killed-'));
    let url: string;
    let learner: TestServer;
    let key: string;
    let container: string;
    const running: Served[] = [];

    /** A `serve --learning off` process on the data directory `replica`, saving its indexes after 1 s at rest. */
    const replica = async (log: string) => {
      const served = await spawnServer(
        join(home, 'replica'),
        {
          ENGRAM_DATABASE_URL: url,
          ENGRAM_EMBEDDER: 'fast',
          ENGRAM_LOG_LEVEL: 'info',
          ENGRAM_INDEX_SAVE_SECONDS: '1',
        },
        join(home, log),
        ['--learning', 'off'],
      );
      running.push(served);
      return served;
    };
    const logOf = (name: string) => Bun.file(join(home, name)).text();
    /** The documents a search on `at` finds for `q`. */
    const found = async (at: Served, q: string): Promise<string[]> =>
      (await call(at, 'POST', '/v1/search', key, { q, container })).body.results.map((r: any) => r.document_id);
    const learn = (content: string) => addAndLearn(learner, key, container, content);

    beforeAll(async () => {
      url = await server.createDatabase();
      learner = await startTestServer({ env: { ENGRAM_DATABASE_URL: url } });
      const owner = (await makeOwner(learner)).token;
      container = await makeContainer(learner, owner, 'Orchard');
      key = (await makeKey(learner, owner, { level: 'manage', all_views: true })).key;
    });
    afterAll(async () => {
      for (const { proc } of running) proc.kill('SIGKILL');
      await Promise.all(running.map(({ proc }) => proc.exited));
      await learner?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('starts from the copy it saved while resting, and applies what was learned and forgotten while it was down', async () => {
      const apples = await learn('The apple trees are pruned in late winter.');
      const pears = await learn('The pear blossom needs a frost-free spring.');
      const before = learner.services.indexes.count('fast');
      const first = await replica('first.log');
      expect(await logOf('first.log')).not.toContain(READ);
      expect(await found(first, 'when are the apple trees pruned')).toContain(apples);
      // It rests: nothing learned, no search. Once its save interval has passed it writes its copy.
      expect(await until(20_000, async () => savesIn(await logOf('first.log')).length > 0)).toBe(true);
      const [saved] = savesIn(await logOf('first.log'));
      expect(saved!.fast).toBe(before);
      first.proc.kill('SIGKILL');
      await first.proc.exited;

      // While it is down, through another process: one passage forgotten, two learned.
      expect((await call(learner, 'DELETE', `/v1/documents/${pears}?confirm=true`, key)).status).toBe(200);
      const plums = await learn('The plums are picked in September.');
      await learn('The cherries are netted against the blackbirds.');
      const after = learner.services.indexes.count('fast');
      expect(after).toBe(before + 1);

      const second = await replica('second.log');
      const log = await logOf('second.log');
      expect(log).toContain(READ);
      expect(JSON.parse(log.split('\n').find((line) => line.includes(READ))!).commit).toBe(saved!.commit);
      expect(await found(second, 'when are the plums picked')).toContain(plums);
      expect(await found(second, 'pear blossom frost')).not.toContain(pears);
      // Its index holds what the learner's does: the forgotten passage dropped, the two learned added.
      // It says so when it saves again, once it rests (search finds by keyword too, from the database).
      expect(await until(20_000, async () => savesIn(await logOf('second.log')).length > 0)).toBe(true);
      const [again] = savesIn(await logOf('second.log'));
      expect(again!.fast).toBe(after);
      expect(again!.commit).toBeGreaterThan(saved!.commit);
    }, 60_000);
  });
}

/**
 * A server's connections to a shared PostgreSQL store: its pool is as large as
 * ENGRAM_DATABASE_CONNECTIONS says (a size it cannot work with is refused at start), and the
 * accounts' turns, which may each last a minute, hold their slots outside that pool, so that turns
 * filling as many slots as the pool has connections leave every other request its answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { join } from 'node:path';
import { ROOT } from '../../../bench/lib/engram-process';
import { postgresOrSkip } from '../../helpers/postgres';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const server = postgresOrSkip("a server's connections to a shared PostgreSQL store");

/** `work`'s result, or a failure naming `what` when it takes over 5 s (a request waiting for a connection). */
function inTime<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: Timer | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within 5 s`)), 5000);
  });
  return Promise.race([work, late]).finally(() => clearTimeout(timer));
}

describe('the pool size setting', () => {
  it('refuses a pool of fewer than 2 connections, or not a number, naming the variable and the range', () => {
    for (const bad of ['1', '0', 'many']) {
      const run = Bun.spawnSync(
        [process.execPath, join(ROOT, 'src/main.ts'), 'serve', '--database', 'postgres://127.0.0.1:1/none'],
        { cwd: ROOT, env: { ...process.env, ENGRAM_DATABASE_CONNECTIONS: bad }, stdin: 'ignore' },
      );
      expect(run.exitCode).toBe(2);
      expect(run.stderr.toString()).toContain(
        `ENGRAM_DATABASE_CONNECTIONS must be an integer from 2 to 1000 (got "${bad}")`,
      );
    }
  });
});

if (server) {
  describe('a server with a pool of 2 connections on PostgreSQL', () => {
    let url: string;
    let s: TestServer;
    let admin: SQL;
    let key: string;
    let container: string;
    beforeAll(async () => {
      url = await server.createDatabase();
      s = await startTestServer({
        env: { ENGRAM_DATABASE_URL: url, ENGRAM_DATABASE_CONNECTIONS: '2' },
        learning: false,
      });
      const owner = (await makeOwner(s)).token;
      container = await makeContainer(s, owner, 'Kitchen');
      key = (await makeKey(s, owner, { level: 'manage', all_views: true })).key;
      admin = new SQL({ url, max: 1 });
    });
    afterAll(async () => {
      await s?.close();
      await admin?.close();
    });

    /** The server's connections to its database, by what they are for (the feed's LISTEN apart). */
    const connections = async () => {
      const rows = await admin`
        SELECT application_name AS name, query FROM pg_stat_activity
         WHERE datname = current_database() AND application_name LIKE 'engram%'`;
      const pool = rows.filter((r: any) => r.name === 'engram' && !/^LISTEN/i.test(r.query)).length;
      return { pool, turns: rows.filter((r: any) => r.name === 'engram turns').length };
    };

    it('opens no more connections than ENGRAM_DATABASE_CONNECTIONS, however many requests come at once', async () => {
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          call(s, 'POST', '/v1/search', key, { q: `the oven timer ${i}`, container }),
        ),
      );
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      expect((await connections()).pool).toBe(2);
    });

    it('answers a search while turns hold more slots than the pool has connections', async () => {
      const release = Promise.withResolvers<void>();
      // Two accounts' two turns each: four slots, twice the pool.
      const turns = ['acc_one', 'acc_one', 'acc_two', 'acc_two'].map((account) =>
        s.services.turns.run(account, () => release.promise),
      );
      try {
        await Bun.sleep(200);
        await expect(
          inTime(
            'a third turn',
            s.services.turns.run('acc_one', async () => 'a third'),
          ),
        ).rejects.toMatchObject({ code: 'rate_limited' });
        const found = await inTime('a search', call(s, 'POST', '/v1/search', key, { q: 'the oven timer', container }));
        expect(found.status).toBe(200);
        // Every slot on one connection of their own.
        expect(await connections()).toEqual({ pool: 2, turns: 1 });
      } finally {
        release.resolve();
        await Promise.all(turns);
      }
      expect(await s.services.turns.run('acc_one', async () => 'after')).toBe('after');
    }, 20_000);

    it('frees the slots of a process killed with -9 mid-turn at once', async () => {
      // Another process holds both of an account's slots, in turns that never end, until killed.
      const holder = Bun.spawn(
        [
          process.execPath,
          '-e',
          `const { openPostgresStore } = await import(${JSON.stringify(join(ROOT, 'src/storage/postgres/postgres-store.ts'))});
           const store = await openPostgresStore(${JSON.stringify(url)});
           let entered = 0;
           const never = () => { if (++entered === 2) console.log('held'); return new Promise(() => {}); };
           for (let i = 0; i < 2; i++) store.limits.withTurn('acc_killed', 2, never, () => { throw new Error('busy'); });
           setInterval(() => {}, 60_000); // alive until killed`,
        ],
        { cwd: ROOT, stdout: 'pipe', stderr: 'inherit' },
      );
      const reader = holder.stdout.getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('held');
      expect(holder.exitCode).toBeNull();
      await expect(s.services.turns.run('acc_killed', async () => 'a third')).rejects.toMatchObject({
        code: 'rate_limited',
      });
      holder.kill('SIGKILL');
      await holder.exited;
      // PostgreSQL ends the dead process's session as its socket closes: both slots are free again,
      // for two turns at once.
      const deadline = Date.now() + 2000;
      let running = 0;
      while (running < 2 && Date.now() < deadline) {
        const release = Promise.withResolvers<void>();
        running = 0;
        // Settled from the start: a turn refused while PostgreSQL has not yet seen the holder die is
        // an answer to try again on, not an unhandled rejection.
        const turns = Promise.allSettled(
          [1, 2].map(() =>
            s.services.turns.run('acc_killed', async () => {
              running++;
              await release.promise;
            }),
          ),
        );
        await Bun.sleep(50);
        release.resolve();
        if ((await turns).some((t) => t.status === 'rejected')) running = 0;
      }
      expect(running).toBe(2);
    }, 20_000);
  });
}

/**
 * A server's connections to a shared PostgreSQL store: its pool is as large as
 * ENGRAM_DATABASE_CONNECTIONS says (a size it cannot work with is refused at start).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { join } from 'node:path';
import { ROOT } from '../../../bench/lib/engram-process';
import { postgresOrSkip } from '../../helpers/postgres';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const server = postgresOrSkip("a server's connections to a shared PostgreSQL store");

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
  });
}

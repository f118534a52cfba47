/**
 * The vector feed's retention as a self-hoster sets it (ENGRAM_FEED_KEEP_COMMITS): `engram learn`
 * prunes the feed to it with no replica running, so the feed stays bounded whichever processes run;
 * and a retention the feed cannot work with is refused at start, with what is allowed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../../bench/lib/engram-process';
import { openPostgresStore } from '../../../src/storage/postgres/postgres-store';
import { postgresOrSkip } from '../../helpers/postgres';

const server = postgresOrSkip('a learner pruning the vector feed to the retention it is given');

/** An `engram` command line with `env`: its exit code and standard error, once it ends. */
function engram(args: string[], env: Record<string, string>) {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args], {
    cwd: ROOT,
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn', ...env },
    stdin: 'ignore',
  });
  return { exitCode: run.exitCode, stderr: run.stderr.toString() };
}

describe('the vector feed retention setting', () => {
  it('refuses a retention below 1,000 commits, or not a number, naming the variable and the range', () => {
    for (const bad of ['999', 'ten', '5000.5']) {
      const { exitCode, stderr } = engram(['learn', '--database', 'postgres://127.0.0.1:1/none'], {
        ENGRAM_FEED_KEEP_COMMITS: bad,
      });
      expect(exitCode).toBe(2);
      expect(stderr).toContain(`ENGRAM_FEED_KEEP_COMMITS must be an integer from 1000 to 100000000 (got "${bad}")`);
    }
  });
});

if (server) {
  describe('engram learn on a shared PostgreSQL store', () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-feed-retention-'));
    let url: string;
    let sql: SQL;
    let learner: ReturnType<typeof Bun.spawn> | null = null;
    beforeAll(async () => {
      url = await server.createDatabase();
      await (await openPostgresStore(url)).close();
      sql = new SQL({ url, max: 1 });
    });
    afterAll(async () => {
      learner?.kill('SIGKILL');
      await learner?.exited;
      await sql?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('prunes the feed to ENGRAM_FEED_KEEP_COMMITS with no replica following it', async () => {
      // 1,500 commits, each its own transaction, numbered as it commits (the feed's trigger).
      await sql.unsafe(
        'DO $$ BEGIN FOR i IN 1..1500 LOOP INSERT INTO vector_commits (xid) VALUES (pg_current_xact_id()); COMMIT; END LOOP; END $$',
      );
      const floor = async () => Number((await sql`SELECT floor FROM vector_feed_floor`)[0].floor);
      const head = Number((await sql`SELECT max(commit_seq) AS head FROM vector_commits`)[0].head);
      expect(head).toBeGreaterThanOrEqual(1500);
      expect(await floor()).toBe(0);

      learner = Bun.spawn(
        [process.execPath, join(ROOT, 'src/main.ts'), 'learn', '--database', url, '--data', join(home, 'learner')],
        {
          cwd: ROOT,
          env: { ...process.env, ENGRAM_EMBEDDER: 'fast', ENGRAM_LOG_LEVEL: 'warn', ENGRAM_FEED_KEEP_COMMITS: '1000' },
          stdin: 'ignore',
          stdout: 'ignore',
          stderr: 'ignore',
        },
      );
      const deadline = Date.now() + 30_000;
      while ((await floor()) === 0 && Date.now() < deadline && learner.exitCode === null) await Bun.sleep(100);
      expect(await floor()).toBe(head - 1000);
      const [{ kept }] = await sql`SELECT count(*)::int AS kept FROM vector_commits`;
      expect(kept).toBe(1000);
    }, 40_000);
  });
}

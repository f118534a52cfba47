/**
 * Engram past one machine, as it is run: two `engram serve --learning off` replicas and `engram
 * learn` processes on one PostgreSQL database, each a process of its own started from the command
 * line. A document added through one replica is learned and found through the other; a key revoked
 * with the CLI is refused by a running replica on its next call; kill -9 of a replica during a burst
 * of writes loses no write it acknowledged; kill -9 of a learner mid-job, and a second finishes it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram, freePort, ROOT } from '../../../bench/lib/engram-process';
import { postgresOrSkip } from '../../helpers/postgres';
import { call } from '../../helpers/server';

const server = postgresOrSkip('replicas and learners on one PostgreSQL store');

/** A lease short enough that a dead learner's job is free again within the test. */
const LEASE_SECONDS = 3;

if (server) {
  describe('replicas and learners on one PostgreSQL store', () => {
    const home = mkdtempSync(join(tmpdir(), 'engram-processes-'));
    const procs: ReturnType<typeof Bun.spawn>[] = [];
    let url: string;
    let env: Record<string, string>;
    let container: string;
    let key: string;
    let replicas: { url: string; proc: ReturnType<typeof Bun.spawn> }[];
    /** A page that answers its first reader only when told to: a learner stays mid-job on it. */
    let held = Promise.withResolvers<void>();
    let reads = 0;
    const page = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch() {
        if (++reads === 1) await held.promise;
        return new Response(
          '<html><body><p>The greenhouse door sticks in wet weather; oil the hinge.</p></body></html>',
          { headers: { 'Content-Type': 'text/html' } },
        );
      },
    });

    function spawn(args: string[], dataDir: string) {
      const proc = Bun.spawn(
        [process.execPath, join(ROOT, 'src/main.ts'), ...args, '--database', url, '--data', dataDir],
        {
          cwd: ROOT,
          env: { ...process.env, ...env },
          stdin: 'ignore',
          stdout: 'ignore',
          stderr: 'ignore',
        },
      );
      procs.push(proc);
      return proc;
    }

    async function replica(name: string) {
      const port = freePort();
      const proc = spawn(['serve', '--learning', 'off', '--port', String(port)], join(home, name));
      const origin = `http://127.0.0.1:${port}`;
      for (
        let i = 0;
        i < 300 &&
        !(await fetch(`${origin}/healthz`).then(
          (r) => r.ok,
          () => false,
        ));
        i++
      ) {
        if (proc.exitCode !== null) throw new Error(`replica ${name} exited with ${proc.exitCode}`);
        await Bun.sleep(50);
      }
      return { url: origin, proc };
    }

    const learner = (name: string) => spawn(['learn'], join(home, name));

    /** Polls `fn` every 100 ms until it returns something truthy, up to `ms`. */
    async function until<T>(ms: number, fn: () => Promise<T>): Promise<T> {
      const deadline = Date.now() + ms;
      for (;;) {
        const value = await fn();
        if (value || Date.now() > deadline) return value;
        await Bun.sleep(100);
      }
    }

    beforeAll(async () => {
      url = await server.createDatabase();
      env = {
        ENGRAM_EMBEDDER: 'fast',
        ENGRAM_LOG_LEVEL: 'warn',
        ENGRAM_RATE_LIMIT_PER_MIN: '1000000',
        ENGRAM_JOB_LEASE_SECONDS: String(LEASE_SECONDS),
        ENGRAM_FETCH_ALLOW_PRIVATE: 'true',
      };
      const cli = join(home, 'cli');
      const db = { ...env, ENGRAM_DATABASE_URL: url };
      engram(cli, ['owner', 'create', '--email', 'team@example.org'], 'correct horse battery staple\n', db);
      container = engram(cli, ['containers', 'create', 'Team'], undefined, db);
      key = engram(cli, ['keys', 'create', '--name', 'app', '--level', 'manage', '--all'], undefined, db);
      replicas = await Promise.all([replica('replica-1'), replica('replica-2')]);
    }, 60_000);

    afterAll(async () => {
      for (const proc of procs) proc.kill('SIGKILL');
      await Promise.all(procs.map((p) => p.exited));
      page.stop(true);
      rmSync(home, { recursive: true, force: true });
    });

    it('learns a document added through one replica, and finds it through the other', async () => {
      const first = learner('learner-1');
      const added = await call(replicas[0]!, 'POST', '/v1/documents', key, {
        container,
        content: 'The team standup moved to 9:30 on Tuesdays.',
      });
      expect(added.status).toBe(202);
      const learned = await until(
        20_000,
        async () => (await call(replicas[1]!, 'GET', `/v1/documents/${added.body.id}`, key)).body.status === 'learned',
      );
      expect(learned).toBe(true);
      const found = await until(2_000, async () =>
        (
          await call(replicas[1]!, 'POST', '/v1/search', key, { q: 'when is the standup', container })
        ).body.results.some((r: any) => r.document_id === added.body.id),
      );
      expect(found).toBe(true);
      first.kill('SIGTERM');
      await first.exited;
    }, 40_000);

    it("refuses a key revoked with the CLI on a running replica's next call", async () => {
      const db = { ...env, ENGRAM_DATABASE_URL: url };
      const cli = join(home, 'cli');
      const reader = engram(cli, ['keys', 'create', '--name', 'reader', '--level', 'read', '--all'], undefined, db);
      expect((await call(replicas[1]!, 'GET', '/v1/containers', reader)).status).toBe(200);
      const id = engram(cli, ['keys', 'list'], undefined, db)
        .split('\n')
        .find((line) => line.includes('\treader\t'))!
        .split('\t')[0]!;
      engram(cli, ['keys', 'revoke', id], undefined, db);
      expect((await call(replicas[1]!, 'GET', '/v1/containers', reader)).status).toBe(403);
    }, 30_000);

    it('loses no acknowledged write when a replica is killed (kill -9) during a burst', async () => {
      const acknowledged: string[] = [];
      const victim = replicas[0]!;
      let stop = false;
      const writers = Array.from({ length: 8 }, async (_, w) => {
        for (let i = 0; !stop; i++) {
          const res = await call(victim, 'POST', '/v1/documents', key, {
            container,
            content: `Burst write ${w}-${i}.`,
          }).catch(() => null);
          if (res?.status === 202) acknowledged.push(res.body.id);
          else if (!res) return;
        }
      });
      await until(10_000, async () => acknowledged.length >= 40);
      victim.proc.kill('SIGKILL');
      await victim.proc.exited;
      stop = true;
      await Promise.all(writers);
      expect(acknowledged.length).toBeGreaterThanOrEqual(40);
      const missing: string[] = [];
      for (const id of acknowledged)
        if ((await call(replicas[1]!, 'GET', `/v1/documents/${id}`, key)).status !== 200) missing.push(id);
      expect(missing).toEqual([]);
      replicas[0] = await replica('replica-1');
    }, 60_000);

    it('finishes through a second learner the job a killed one (kill -9) held', async () => {
      const first = learner('learner-2');
      const added = await call(replicas[0]!, 'POST', '/v1/documents', key, {
        container,
        url: `http://127.0.0.1:${page.port}/door`,
      });
      expect(added.status).toBe(202);
      // The first learner is mid-job: its read of the page is held open.
      expect(await until(20_000, async () => reads >= 1)).toBe(true);
      first.kill('SIGKILL');
      await first.exited;
      held.resolve();
      const second = learner('learner-3');
      const learned = await until(
        LEASE_SECONDS * 1000 + 20_000,
        async () => (await call(replicas[1]!, 'GET', `/v1/documents/${added.body.id}`, key)).body.status === 'learned',
      );
      expect(learned).toBe(true);
      expect(reads).toBe(2);
      second.kill('SIGTERM');
      await second.exited;
      held = Promise.withResolvers<void>();
    }, 60_000);
  });
}

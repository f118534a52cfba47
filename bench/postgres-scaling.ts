/**
 * Engram on PostgreSQL against SQLite on the same host (docs/performance.md, "PostgreSQL"): the
 * same generated corpus learned into each store (the fast tier), then, alternating the engines:
 *   - search p50/p95 over HTTP (one query at a time);
 *   - a server's start: spawn to the first search answered, its indexes loaded; SQLite's from its
 *     saved indexes and from nothing, PostgreSQL's from nothing (its start from the indexes it saved:
 *     bench/postgres-replica-start.ts);
 *   - adds a second: 16 clients adding documents for 10 s, to SQLite's one server and spread over
 *     two PostgreSQL replicas (serve --learning off);
 *   - learning a backlog of documents with one `engram learn` and with two (PostgreSQL), timed from
 *     the learners' spawn to an empty queue (their start, ~1 s, included).
 * Give a server with its default durability settings (fsync on): the tests' throwaway servers turn
 * it off, which flatters every write.
 *
 *   bun bench/postgres-scaling.ts [--passages 100000] [--queries 500] [--backlog 3000] [--database URL]
 *
 * Without --database, a throwaway server is started from the machine's binaries (scripts/postgres.sh).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SQL } from 'bun';
import { percentile, query, seeded } from './lib/corpus';
import { ROOT, searchOnce, spawnServer } from './lib/engram-process';
import { newBenchDatabase } from './lib/postgres-database';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '500' },
    backlog: { type: 'string', default: '3000' },
    database: { type: 'string', default: process.env.ENGRAM_DATABASE_URL },
  },
});
const PASSAGES = Number(values.passages);
const QUERIES = Number(values.queries);
const BACKLOG = Number(values.backlog);
const FAST = { ENGRAM_EMBEDDER: 'fast' };

const work = mkdtempSync(join(tmpdir(), 'engram-scaling-'));
const sqliteDir = join(work, 'sqlite');
/** The servers' standard error, kept out of the table. */
const log = join(work, 'servers.log');
const url = await newBenchDatabase(values.database, `engram_scaling_${process.pid}`);
const PG = { ...FAST, ENGRAM_DATABASE_URL: url };
console.log(`seeding ${PASSAGES} passages into each store...`);
const sqliteSeed = await seedStore(sqliteDir, PASSAGES, 'fast', false);
const pgSeed = await seedStore(join(work, 'pg-seed'), PASSAGES, 'fast', false, false, url);
console.log(`seeded: SQLite ${sqliteSeed.seconds.toFixed(0)} s, PostgreSQL ${pgSeed.seconds.toFixed(0)} s`);

type Server = Awaited<ReturnType<typeof spawnServer>>;
const stop = async (s: Server) => {
  s.proc.kill('SIGTERM');
  await s.proc.exited;
};
const search = (s: Server, key: string, q: string) => searchOnce(s.url, key, q);
/** Spawn to the first search answered (it waits for the indexes to load). */
async function started(
  dir: string,
  env: Record<string, string>,
  key: string,
  args: string[] = [],
): Promise<{ server: Server; ms: number }> {
  const t0 = performance.now();
  const server = await spawnServer(dir, env, log, args);
  await search(server, key, 'the first question');
  return { server, ms: performance.now() - t0 };
}

// Start-up, and search latency, alternating the engines.
const starts: Record<string, number[]> = {
  'SQLite, saved indexes': [],
  'SQLite, from nothing': [],
  'PostgreSQL, from nothing': [],
};
const latency: Record<string, number[]> = { SQLite: [], PostgreSQL: [] };
const random = seeded(7);
for (let round = 0; round < 3; round++) {
  rmSync(join(sqliteDir, 'vector-index'), { recursive: true, force: true });
  const fresh = await started(sqliteDir, FAST, sqliteSeed.key);
  starts['SQLite, from nothing']!.push(fresh.ms);
  await stop(fresh.server); // a clean stop saves the indexes
  const saved = await started(sqliteDir, FAST, sqliteSeed.key);
  starts['SQLite, saved indexes']!.push(saved.ms);
  const pg = await started(join(work, `pg-${round}`), PG, pgSeed.key, ['--learning', 'off']);
  starts['PostgreSQL, from nothing']!.push(pg.ms);
  const queries = Array.from({ length: QUERIES }, () => query(random));
  for (const [name, s, key] of [
    ['SQLite', saved.server, sqliteSeed.key],
    ['PostgreSQL', pg.server, pgSeed.key],
  ] as const) {
    for (let i = 0; i < 20; i++) await search(s, key, queries[i]!); // warm-up
    for (const q of queries) {
      const t = performance.now();
      await search(s, key, q);
      latency[name]!.push(performance.now() - t);
    }
  }
  await stop(saved.server);
  await stop(pg.server);
}

/** Documents added a second by `clients` clients over `servers` (round robin) for `seconds`. */
async function adds(servers: Server[], key: string, clients: number, seconds: number): Promise<number> {
  let done = 0;
  const until = performance.now() + seconds * 1000;
  const container = (
    await (await fetch(`${servers[0]!.url}/v1/containers`, { headers: { Authorization: `Bearer ${key}` } })).json()
  ).containers[0].id;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      const r = seeded(100 + c);
      for (let i = 0; performance.now() < until; i++) {
        const s = servers[(c + i) % servers.length]!;
        const res = await fetch(`${s.url}/v1/documents`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ container, content: query(r) }),
        });
        if (res.status !== 202) throw new Error(`add answered ${res.status}`);
        await res.arrayBuffer();
        done++;
      }
    }),
  );
  return done / seconds;
}
const sqliteServer = await spawnServer(sqliteDir, FAST, log);
const sqliteAdds = await adds([sqliteServer], sqliteSeed.key, 16, 10);
await stop(sqliteServer);
const replicas = [
  await spawnServer(join(work, 'r1'), PG, log, ['--learning', 'off']),
  await spawnServer(join(work, 'r2'), PG, log, ['--learning', 'off']),
];
const pgAdds = await adds(replicas, pgSeed.key, 16, 10);

// Learning what the adds queued, and a backlog more, with one learner and then two.
const admin = new SQL({ url, max: 1 });
const pending = async () =>
  Number((await admin`SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')`)[0].n);
async function learnBacklog(learners: number): Promise<{ documents: number; seconds: number }> {
  const container = (
    await (
      await fetch(`${replicas[0]!.url}/v1/containers`, { headers: { Authorization: `Bearer ${pgSeed.key}` } })
    ).json()
  ).containers[0].id;
  const r = seeded(learners);
  for (let i = 0; i < BACKLOG; i += 50) {
    await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${replicas[0]!.url}/v1/documents`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${pgSeed.key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ container, content: Array.from({ length: 8 }, () => query(r)).join(' ') }),
        }).then((res) => res.arrayBuffer()),
      ),
    );
  }
  const documents = await pending();
  const t0 = performance.now();
  const procs = Array.from({ length: learners }, (_, n) =>
    Bun.spawn(
      [process.execPath, join(ROOT, 'src/main.ts'), 'learn', '--data', join(work, `learner-${learners}-${n}`)],
      {
        cwd: ROOT,
        env: { ...process.env, ...PG, ENGRAM_LOG_LEVEL: 'warn' },
        stdin: 'ignore',
        stdout: 'ignore',
        stderr: 'inherit',
      },
    ),
  );
  while ((await pending()) > 0) await Bun.sleep(100);
  const seconds = (performance.now() - t0) / 1000;
  for (const p of procs) p.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  return { documents, seconds };
}
await learnBacklog(2); // what the adds queued, untimed: each timed backlog below is BACKLOG documents
const one = await learnBacklog(1);
const two = await learnBacklog(2);
const size = Number((await admin`SELECT pg_database_size(current_database()) AS n`)[0].n);
await admin.close();
for (const r of replicas) await stop(r);

const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\n${PASSAGES} passages (fast tier), ${QUERIES} queries x 3 rounds, alternated; load: ${(await Bun.file('/proc/loadavg').text()).trim()}\n`,
);
console.log('| | SQLite | PostgreSQL |\n|---|---|---|');
for (const p of [50, 95] as const) {
  console.log(
    `| search p${p} over HTTP, ms | ${percentile(
      latency.SQLite!.toSorted((a, b) => a - b),
      p,
    ).toFixed(1)} | ${percentile(
      latency.PostgreSQL!.toSorted((a, b) => a - b),
      p,
    ).toFixed(1)} |`,
  );
}
console.log(
  `| start to the first search, ms (median of 3) | ${median(starts['SQLite, saved indexes']!).toFixed(0)} from saved indexes, ${median(starts['SQLite, from nothing']!).toFixed(0)} from nothing | ${median(starts['PostgreSQL, from nothing']!).toFixed(0)} from nothing |`,
);
console.log(
  `| adds a second, 16 clients | ${sqliteAdds.toFixed(0)} (one server) | ${pgAdds.toFixed(0)} (two replicas) |`,
);
console.log(
  `| learning a backlog (fast tier), documents a second | | one learner: ${(one.documents / one.seconds).toFixed(0)} (${one.documents} in ${one.seconds.toFixed(1)} s); two: ${(two.documents / two.seconds).toFixed(0)} (${two.documents} in ${two.seconds.toFixed(1)} s) |`,
);
console.log(
  `| store size | ${(Bun.file(join(sqliteDir, 'engram.db')).size / 2 ** 20).toFixed(0)} MiB (engram.db) | ${(size / 2 ** 20).toFixed(0)} MiB (the database) |`,
);
rmSync(work, { recursive: true, force: true });
process.exit(0);

/**
 * Search latency over HTTP, one source tree against another, on PostgreSQL and on SQLite
 * (docs/performance.md, "PostgreSQL", "Fewer waits on the database"): each tree's `engram serve` on
 * the same stores (on PostgreSQL a replica each, `--learning off`, on one database; on SQLite a copy
 * of the store each), and every generated question asked of every server in turn, the order flipped
 * each question, so that a shared host's load falls on every server alike. Prints each server's
 * p50/p95 and its process's CPU time per search, a round at a time and over all rounds.
 *
 *   bun bench/postgres-search.ts --trees main=/path/to/a/worktree,branch=. [--passages 100000]
 *     [--queries 500] [--rounds 3] [--engines pg,sqlite] [--database URL] [--keep DIR]
 *
 * A tree is a checkout of Engram with its node_modules. With `--keep DIR` the seeded stores (fast
 * tier) are kept in DIR and reused by the next run; without `--database`, a throwaway server is
 * started from the machine's binaries (the tests' settings: fsync off, which searches hardly feel).
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, query, seeded } from './lib/corpus';
import { type Served, searchOnce } from './lib/engram-process';
import { newBenchDatabase } from './lib/postgres-database';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    trees: { type: 'string', default: 'this=.' },
    passages: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '3' },
    engines: { type: 'string', default: 'pg,sqlite' },
    database: { type: 'string', default: process.env.ENGRAM_DATABASE_URL },
    keep: { type: 'string' },
  },
});
const QUERIES = Number(values.queries);
const ROUNDS = Number(values.rounds);
const engines = new Set(values.engines.split(','));
const trees = values.trees.split(',').map((t) => {
  const [name, path] = t.split('=');
  return { name: name!, root: resolve(path!) };
});
const FAST = { ENGRAM_EMBEDDER: 'fast' };

const work = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-pg-search-'));
mkdirSync(work, { recursive: true });
const log = join(work, 'servers.log');
// A kept PostgreSQL store is found again by the URL its first run wrote down.
const urlFile = join(work, 'database-url');
let url: string | null = null;
if (engines.has('pg')) {
  url = existsSync(urlFile)
    ? readFileSync(urlFile, 'utf8').trim()
    : await newBenchDatabase(values.database, `engram_pg_search_${process.pid}`);
  await Bun.write(urlFile, url);
}
console.log(`seeding ${values.passages} passages (or reusing ${work})...`);
const stores = {
  pg: url ? await seedStore(join(work, 'pg'), Number(values.passages), 'fast', true, false, url) : null,
  sqlite: engines.has('sqlite') ? await seedStore(join(work, 'sqlite'), Number(values.passages), 'fast', true) : null,
};

interface Server {
  name: string;
  served: Served;
  key: string;
}
/** The server's CPU time so far, in ms (user and system, from /proc: Linux). */
function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
const search = (s: Server, q: string) =>
  searchOnce(s.served.url, s.key, q).catch((err) => {
    throw new Error(`${s.name}: ${err.message}`);
  });
async function start(): Promise<Server[]> {
  const servers: Server[] = [];
  for (const tree of trees) {
    // Each tree's own launcher, so that each runs its own src/main.ts.
    const { spawnServer } = (await import(join(tree.root, 'bench/lib/engram-process.ts'))) as {
      spawnServer: (dir: string, env: Record<string, string>, stderr: string, args?: string[]) => Promise<Served>;
    };
    if (stores.pg) {
      const served = await spawnServer(
        join(work, `replica-${tree.name}`),
        { ...FAST, ENGRAM_DATABASE_URL: url! },
        log,
        ['--learning', 'off'],
      );
      servers.push({ name: `PostgreSQL ${tree.name}`, served, key: stores.pg.key });
    }
    if (stores.sqlite) {
      const copy = join(work, `sqlite-${tree.name}`);
      if (!existsSync(copy)) cpSync(join(work, 'sqlite'), copy, { recursive: true });
      servers.push({ name: `SQLite ${tree.name}`, served: await spawnServer(copy, FAST, log), key: stores.sqlite.key });
    }
  }
  return servers;
}

const sorted = (xs: number[]) => xs.toSorted((a, b) => a - b);
const latency = new Map<string, number[]>();
const random = seeded(7);
for (let round = 1; round <= ROUNDS; round++) {
  const servers = await start();
  const questions = Array.from({ length: QUERIES }, () => query(random));
  for (const s of servers) for (const q of questions.slice(0, 20)) await search(s, q); // warm-up
  const cpuBefore = servers.map((s) => cpuMs(s.served.proc.pid));
  const times = new Map<string, number[]>(servers.map((s) => [s.name, []]));
  for (const [i, q] of questions.entries()) {
    for (const s of i % 2 ? servers.toReversed() : servers) {
      const t = performance.now();
      await search(s, q);
      times.get(s.name)!.push(performance.now() - t);
    }
  }
  const cpu = servers.map((s, i) => (cpuMs(s.served.proc.pid) - cpuBefore[i]!) / QUERIES);
  for (const s of servers) s.served.proc.kill('SIGTERM');
  await Promise.all(servers.map((s) => s.served.proc.exited));
  console.log(`round ${round}, load ${(await Bun.file('/proc/loadavg').text()).trim()}`);
  servers.forEach((s, i) => {
    const xs = sorted(times.get(s.name)!);
    latency.set(s.name, [...(latency.get(s.name) ?? []), ...xs]);
    console.log(
      `  ${s.name}: p50 ${percentile(xs, 50).toFixed(1)} ms, p95 ${percentile(xs, 95).toFixed(1)} ms, server CPU ${cpu[i]!.toFixed(1)} ms a search`,
    );
  });
}
console.log(`\n${values.passages} passages (fast tier), ${QUERIES} questions x ${ROUNDS} rounds\n`);
console.log('| server | search p50 | search p95 |\n|---|---|---|');
for (const [name, xs] of latency) {
  const all = sorted(xs);
  console.log(`| ${name} | ${percentile(all, 50).toFixed(1)} ms | ${percentile(all, 95).toFixed(1)} ms |`);
}
if (!values.keep) rmSync(work, { recursive: true, force: true });

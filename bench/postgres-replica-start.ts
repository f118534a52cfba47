/**
 * A replica's start on PostgreSQL (docs/performance.md, "A replica's start on PostgreSQL"): the
 * generated corpus learned into a database (the fast tier), then, alternating, a `serve --learning
 * off` replica timed from its spawn to the first search answered (which waits for its indexes):
 * from nothing (a new data directory: its indexes built from the store), and from the indexes it
 * saved at its clean stop (read back, then the feed followed from their commit).
 *
 *   bun bench/postgres-replica-start.ts [--passages 100000] [--rounds 3] [--database URL]
 *
 * Without --database, a throwaway server is started from the machine's binaries (scripts/postgres.sh).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { searchOnce, spawnServer } from './lib/engram-process';
import { newBenchDatabase } from './lib/postgres-database';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    database: { type: 'string', default: process.env.ENGRAM_DATABASE_URL },
  },
});
const PASSAGES = Number(values.passages);
const ROUNDS = Number(values.rounds);

const work = mkdtempSync(join(tmpdir(), 'engram-replica-start-'));
const log = join(work, 'servers.log');
const url = await newBenchDatabase(values.database, `engram_replica_start_${process.pid}`);
const env = { ENGRAM_EMBEDDER: 'fast', ENGRAM_DATABASE_URL: url };
console.log(`seeding ${PASSAGES} passages...`);
const seed = await seedStore(join(work, 'seed'), PASSAGES, 'fast', false, false, url);
console.log(`seeded in ${seed.seconds.toFixed(0)} s`);

/** Spawn to the first search answered, then a clean stop (which saves the indexes). */
async function start(dir: string): Promise<number> {
  const t0 = performance.now();
  const server = await spawnServer(dir, env, log, ['--learning', 'off']);
  await searchOnce(server.url, seed.key, 'the first question');
  const ms = performance.now() - t0;
  server.proc.kill('SIGTERM');
  await server.proc.exited;
  return ms;
}

const fromNothing: number[] = [];
const fromSnapshot: number[] = [];
const loads: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  const dir = join(work, `replica-${round}`);
  loads.push(loadavg()[0]!);
  fromNothing.push(await start(dir));
  fromSnapshot.push(await start(dir));
  console.log(
    `round ${round + 1}: from nothing ${fromNothing.at(-1)!.toFixed(0)} ms, from its snapshot ${fromSnapshot.at(-1)!.toFixed(0)} ms (load ${loads.at(-1)!.toFixed(1)})`,
  );
}
const median = (xs: number[]) => xs.toSorted((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(
  `\n${PASSAGES} passages, median of ${ROUNDS}; load average ${Math.min(...loads).toFixed(1)} to ${Math.max(...loads).toFixed(1)}`,
);
console.log(
  `| replica start to the first search, ms | from nothing ${median(fromNothing).toFixed(0)} | from its snapshot ${median(fromSnapshot).toFixed(0)} |`,
);
rmSync(work, { recursive: true, force: true });
process.exit(0);

/**
 * Default search latency of source trees against each other, alternated on one host (old, new,
 * old, new, ...), as the figures of docs/performance.md's regression were taken: each tree's server
 * on its own copy of one seeded store (`bench/search-latency.ts --keep DIR` seeds one; seed it with
 * the oldest tree, since a newer one migrates the store it opens), 50 searches to warm, then
 * `--queries` one at a time. Printed a run: the server's CPU a search (from /proc, the steadier
 * figure on a shared host), p50, p95 and p99, start to first search (from the spawn), and the load
 * average; then each tree's medians.
 *
 *   bun bench/search-ab.ts --store DIR [--rounds 3] [--queries 300] TREE...
 *
 * A store too large to copy (archive-scale.ts's million passages) is given once a tree instead,
 * searched where it is (a copy made beforehand for each): `--stores DIR,DIR… --key KEY` (the key in
 * the store's built.json). Its first run in a tree that saves its indexes otherwise may rebuild them:
 * run a round to warm before one that counts.
 */
import { cpSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { sweepThenRemove } from '../test/helpers/secret-sweep';
import { percentile, query, seeded } from './lib/corpus';
import { searchOnce, spawnServer } from './lib/engram-process';
import { claimStrongVectors } from './lib/synthetic-strong';

const { values, positionals: trees } = parseArgs({
  options: {
    'keep-vectors': { type: 'boolean', default: false },
    store: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    queries: { type: 'string', default: '300' },
    stores: { type: 'string' },
    key: { type: 'string' },
  },
  allowPositionals: true,
});
const own = values.stores?.split(',');
if ((!values.store && !own) || trees.length < 2 || (own && (own.length !== trees.length || !values.key)))
  throw new Error('usage: bun bench/search-ab.ts (--store DIR | --stores DIR,DIR... --key KEY) TREE TREE...');
const key = values.key ?? readFileSync(join(values.store!, 'bench-key'), 'utf8').trim();
const work = mkdtempSync(join(tmpdir(), 'engram-search-ab-'));
const copies =
  own ??
  trees.map((_, i) => {
    const copy = join(work, `tree-${i}`);
    cpSync(values.store!, copy, { recursive: true });
    return copy;
  });
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
/** The strong model `tree` embeds with here (its own code, as its server would load it). */
const strongModelOf = (tree: string): { id: string; dimensions: number } => {
  const printed = Bun.spawnSync(
    [
      process.execPath,
      '-e',
      `const { loadConfig } = await import('${resolve(tree)}/src/config');
       const { createEmbedders } = await import('${resolve(tree)}/src/embedders/create-embedders');
       const { strong } = await createEmbedders(loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: '${work}' }));
       console.log(JSON.stringify({ id: strong.id, dimensions: strong.dimensions }));
       process.exit(0);`,
    ],
    { cwd: tree, stderr: 'inherit' },
  ).stdout.toString();
  if (!printed.startsWith('{"id"')) throw new Error(`${tree} names no strong model: ${printed}`);
  return JSON.parse(printed);
};
// A tree whose strong model has another id than the store's (358bb23's float products against
// int8's since 9ab62e8) drops the store's strong vectors at start and refines them while it is
// measured: its figures are then a fast-tier store's, and not steady. --keep-vectors records each
// copy's strong vectors as its tree's model's: the other arithmetic's (cosine ~0.99 to the tree's
// own), the same in number and cost, which is what this measures.
if (values['keep-vectors'])
  for (const [i, tree] of trees.entries()) claimStrongVectors(copies[i]!, strongModelOf(tree));
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};
const runs = trees.map(() => ({
  cpu: [] as number[],
  p50: [] as number[],
  p95: [] as number[],
  p99: [] as number[],
  first: [] as number[],
}));
const queries = Number(values.queries);

for (let round = 0; round < Number(values.rounds); round++) {
  for (const [i, tree] of trees.entries()) {
    const spawned = performance.now();
    const server = await spawnServer(copies[i]!, { ENGRAM_EMBEDDER: 'builtin' }, 'inherit', [], tree);
    const random = seeded(7);
    await searchOnce(server.url, key, query(random));
    const first = performance.now() - spawned;
    for (let q = 1; q < 50; q++) await searchOnce(server.url, key, query(random));
    const times: number[] = [];
    const cpu0 = cpuSeconds(server.proc.pid);
    for (let q = 0; q < queries; q++) {
      const t = performance.now();
      await searchOnce(server.url, key, query(random));
      times.push(performance.now() - t);
    }
    const cpu = ((cpuSeconds(server.proc.pid) - cpu0) * 1000) / queries;
    server.proc.kill('SIGTERM');
    await server.proc.exited;
    times.sort((a, b) => a - b);
    const run = runs[i]!;
    run.cpu.push(cpu);
    run.p50.push(percentile(times, 50));
    run.p95.push(percentile(times, 95));
    run.p99.push(percentile(times, 99));
    run.first.push(first);
    console.log(
      `round ${round + 1} ${tree}: server CPU ${cpu.toFixed(2)} ms a search, p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, p99 ${percentile(times, 99).toFixed(2)} ms; start to first search ${first.toFixed(0)} ms (load ${load()})`,
    );
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!.toFixed(2);
for (const [i, tree] of trees.entries())
  console.log(
    `${tree}: medians: server CPU ${median(runs[i]!.cpu)} ms a search, p50 ${median(runs[i]!.p50)} ms, p95 ${median(runs[i]!.p95)} ms, p99 ${median(runs[i]!.p99)} ms, start to first search ${median(runs[i]!.first)} ms`,
  );
// `bench-key` is the seeding's, kept there on purpose (bench/lib/seed.ts).
sweepThenRemove({ harness: 'bench:search-ab', stores: own ? [] : copies, exclude: ['bench-key'] }, work);

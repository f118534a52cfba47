/**
 * The keyword stage alone (the store's own keyword search, src/storage/sqlite/passages-repository.ts)
 * on a kept store, opened read-only: one connection with SQLite's default page cache (2 MiB, the
 * store before issue 40's cache) and one with the store's (PAGE_CACHE_KIB), the same queries on
 * each, alternated round by round; with `--mmap MIB`, the store's cache without and with SQLite's
 * memory-mapped reads of that many MiB instead. Then the read-back of a search's pool (getHits, 30
 * passages anywhere in the store) on each. Printed a round, for each stage: process CPU and wall time
 * a search, the read calls the process made (/proc/self/io: pages SQLite asked the OS for), what came
 * from the disk itself (read bytes, and major faults for mapped pages), and for the keyword search a
 * digest of every result, which must match between the two; with the load average. Last, the
 * process's resident memory (file pages, mapped ones among them, apart) and its peak.
 *
 *   bun bench/keyword-stage.ts --db DIR/engram.db [--queries 200] [--rounds 3] [--mmap MIB]
 */
import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PAGE_CACHE_KIB } from '../src/storage/sqlite/open';
import { passagesRepository } from '../src/storage/sqlite/passages-repository';
import { sqliteContext } from '../src/storage/sqlite/context';
import { query, seeded } from './lib/corpus';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    mmap: { type: 'string' },
  },
});
if (!values.db) throw new Error('usage: bun bench/keyword-stage.ts --db DIR/engram.db');

const connection = (cacheKib: number | null, mmapMib = 0) => {
  const raw = new Database(values.db!, { readonly: true });
  if (cacheKib) raw.run(`PRAGMA cache_size = -${cacheKib}`);
  raw.run(`PRAGMA mmap_size = ${mmapMib * 1024 * 1024}`);
  return passagesRepository(sqliteContext(raw));
};
const storeCache = `store's cache (${PAGE_CACHE_KIB / 1024} MiB)`;
const sides = values.mmap
  ? [
      { name: storeCache, passages: connection(PAGE_CACHE_KIB) },
      { name: `${storeCache}, mmap ${values.mmap} MiB`, passages: connection(PAGE_CACHE_KIB, Number(values.mmap)) },
    ]
  : [
      { name: 'default cache (2 MiB)', passages: connection(null) },
      { name: storeCache, passages: connection(PAGE_CACHE_KIB) },
    ];
const probe = new Database(values.db, { readonly: true });
const { accountId, containerId } = probe
  .query<{ accountId: string; containerId: string }, []>(
    'SELECT account_id AS accountId, container_id AS containerId FROM passages LIMIT 1',
  )
  .get()!;
const random = seeded(7);
const queries = Array.from({ length: Number(values.queries) }, () => query(random));

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const io = (field: string) => Number(new RegExp(`${field}: (\\d+)`).exec(readFileSync('/proc/self/io', 'utf8'))![1]);
/** Pages read from the disk through a memory map: the process's major faults (proc(5), stat field 12). */
const majorFaults = () => Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[9]);
const lastId = probe.query<{ id: number }, []>('SELECT max(id) AS id FROM passages').get()!.id;
/** A search's pool read back (getHits): 30 passages anywhere in the store, as the vector scans find them. */
const pools = (seed: number) => {
  const pick = seeded(seed);
  return queries.map(() => Array.from({ length: 30 }, () => 1 + Math.floor(pick() * lastId)));
};
const counters = () => [cpuMs(), performance.now(), io('syscr'), io('read_bytes') / 1024, majorFaults()];
const stage = (name: string, work: () => void) => {
  const before = counters();
  work();
  const [cpu, wall, reads, kib, faults] = counters().map((v, i) => ((v - before[i]!) / queries.length).toFixed(2));
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  return `${name}: CPU ${cpu} ms, wall ${wall} ms, ${reads} read calls, ${kib} KiB and ${faults} major faults from disk (load ${load})`;
};
for (const side of sides) for (const q of queries.slice(0, 20)) side.passages.search(accountId, [containerId], q, 50);
for (let round = 1; round <= Number(values.rounds); round++) {
  sides.forEach(({ name, passages }, n) => {
    const digest = createHash('sha256');
    const keyword = stage('keyword search', () => {
      for (const q of queries) digest.update(JSON.stringify(passages.search(accountId, [containerId], q, 50)));
    });
    // Each side its own passages, so neither reads what the other just brought into the OS's cache.
    const ids = pools(round * 10 + n);
    const readBack = stage("the pool's 30 passages read back", () => {
      for (const pool of ids) passages.getHits(accountId, pool);
    });
    console.log(
      `round ${round}, ${name}, a search:\n  ${keyword}, results ${digest.digest('hex').slice(0, 12)}\n  ${readBack}`,
    );
  });
}
const status = readFileSync('/proc/self/status', 'utf8');
const kib = (field: string) => `${(Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)![1]) / 1024).toFixed(0)} MiB`;
console.log(
  `resident ${kib('VmRSS')} (file pages ${kib('RssFile')}, anonymous ${kib('RssAnon')}), peak ${kib('VmHWM')}`,
);

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
 * With `--containers`, every container of the store's account is searched, on the store's cache:
 * a query per container, merged and cut at the depth (as the search engine asked before issue 40),
 * against one query for them all (as it asks now); the digests must match. Passages of equal score
 * in several containers may come in another order, and at the cut other passages of that score be
 * kept (docs/decisions.md): the digest reads each result's scores in order, and its passages in
 * score then id order, those of the cut's score left out. A store of one container is spread over
 * several by bench/spread-containers.ts.
 *
 *   bun bench/keyword-stage.ts --db DIR/engram.db [--queries 200] [--rounds 3] [--mmap MIB | --containers]
 */
import { Database } from 'bun:sqlite';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { PAGE_CACHE_KIB } from '../src/storage/sqlite/open';
import type { KeywordHit } from '../src/storage/passages';
import { passagesRepository } from '../src/storage/sqlite/passages-repository';
import { sqliteContext } from '../src/storage/sqlite/context';
import { query, seeded } from './lib/corpus';

const { values } = parseArgs({
  options: {
    db: { type: 'string' },
    queries: { type: 'string', default: '200' },
    rounds: { type: 'string', default: '3' },
    mmap: { type: 'string' },
    containers: { type: 'boolean', default: false },
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
const probe = new Database(values.db, { readonly: true });
const { accountId } = probe
  .query<{ accountId: string }, []>('SELECT account_id AS accountId FROM passages LIMIT 1')
  .get()!;
const containerIds = probe
  .query<{ id: string }, [string]>('SELECT id FROM containers WHERE account_id = ? ORDER BY created_at, id')
  .all(accountId)
  .map((c) => c.id);
const DEPTH = 50;
type Search = (q: string) => KeywordHit[];
/** A keyword search of the account's containers on `passages`: all at once, or a query each, merged. */
const searchOf = (passages: ReturnType<typeof connection>, together: boolean): Search =>
  together
    ? (q) => passages.search(accountId, containerIds, q, DEPTH)
    : (q) =>
        containerIds
          .flatMap((id) => passages.search(accountId, [id], q, DEPTH))
          .sort((a, b) => b.score - a.score)
          .slice(0, DEPTH);
const sides: { name: string; passages: ReturnType<typeof connection>; search?: Search }[] = values.containers
  ? [false, true].map((together) => {
      const passages = connection(PAGE_CACHE_KIB);
      return {
        name: `${storeCache}, ${containerIds.length} containers, ${together ? 'one query for all' : 'a query per container'}`,
        passages,
        search: searchOf(passages, together),
      };
    })
  : values.mmap
    ? [
        { name: storeCache, passages: connection(PAGE_CACHE_KIB) },
        { name: `${storeCache}, mmap ${values.mmap} MiB`, passages: connection(PAGE_CACHE_KIB, Number(values.mmap)) },
      ]
    : [
        { name: 'default cache (2 MiB)', passages: connection(null) },
        { name: storeCache, passages: connection(PAGE_CACHE_KIB) },
      ];
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
const searches = sides.map((side) => side.search ?? searchOf(side.passages, true));
/** A result as the digest reads it: as it is, or with `--containers` up to the order of equal scores (above). */
const digested = (hits: KeywordHit[]) => {
  if (!values.containers) return hits;
  const cut = hits.length === DEPTH ? hits.at(-1)!.score : Number.NEGATIVE_INFINITY;
  const above = hits.filter((h) => h.score > cut).sort((a, b) => b.score - a.score || a.passageId - b.passageId);
  return { scores: hits.map((h) => h.score), above: above.map((h) => h.passageId) };
};
for (const search of searches) for (const q of queries.slice(0, 20)) search(q);
for (let round = 1; round <= Number(values.rounds); round++) {
  sides.forEach(({ name, passages }, n) => {
    const digest = createHash('sha256');
    const keyword = stage('keyword search', () => {
      for (const q of queries) digest.update(JSON.stringify(digested(searches[n]!(q))));
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

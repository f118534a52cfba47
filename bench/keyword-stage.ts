/**
 * The keyword stage alone (the store's own keyword search, src/storage/sqlite/passages-repository.ts)
 * on a kept store, opened read-only: one connection with SQLite's default page cache (2 MiB, the
 * store before issue 40's cache) and one with the store's (PAGE_CACHE_KIB), the same queries on
 * each, alternated round by round. Printed a round: process CPU and wall time a search, the read
 * calls the process made a search (/proc/self/io: pages SQLite asked the OS for), and a digest of
 * every result, which must match between the two; with the load average.
 *
 *   bun bench/keyword-stage.ts --db DIR/engram.db [--queries 200] [--rounds 3]
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
  },
});
if (!values.db) throw new Error('usage: bun bench/keyword-stage.ts --db DIR/engram.db');

const connection = (cacheKib: number | null) => {
  const raw = new Database(values.db!, { readonly: true });
  if (cacheKib) raw.run(`PRAGMA cache_size = -${cacheKib}`);
  return passagesRepository(sqliteContext(raw));
};
const sides = [
  { name: 'default cache (2 MiB)', passages: connection(null) },
  { name: `store's cache (${PAGE_CACHE_KIB / 1024} MiB)`, passages: connection(PAGE_CACHE_KIB) },
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
const readCalls = () => Number(/syscr: (\d+)/.exec(readFileSync('/proc/self/io', 'utf8'))![1]);
for (const side of sides) for (const q of queries.slice(0, 20)) side.passages.search(accountId, containerId, q, 50);
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const { name, passages } of sides) {
    const digest = createHash('sha256');
    const [cpu0, reads0, wall0] = [cpuMs(), readCalls(), performance.now()];
    for (const q of queries) digest.update(JSON.stringify(passages.search(accountId, containerId, q, 50)));
    const each = (total: number) => (total / queries.length).toFixed(2);
    const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
    console.log(
      `round ${round}, ${name}: CPU ${each(cpuMs() - cpu0)} ms a search, wall ${each(performance.now() - wall0)} ms, ` +
        `${each(readCalls() - reads0)} read calls, results ${digest.digest('hex').slice(0, 12)} (load ${load})`,
    );
  }
}

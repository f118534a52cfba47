/**
 * The stemmed keyword index (migration 0008) on a store made before it: keyword search latency on
 * the old index and on the stemmed one over the same passages, the online rebuild's time and its
 * effect on searches made meanwhile, and for comparison FTS5's one-transaction 'rebuild'.
 *
 *   bun bench/keyword-index-rebuild.ts --store DIR [--queries 1000] [--limit 100]
 *
 * DIR is a data directory made by the release before migration 0008, e.g. by running
 * `bun bench/search-latency.ts --passages 100000 --embedder none --keep DIR` in a worktree of it.
 * It is copied, never changed. Searches go through the store (`passages.search`) on one connection
 * while a child process rebuilds on its own, as the learning worker does beside the HTTP thread;
 * `--limit` is how many each search asks for (100: the keyword depth the server's search fuses).
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger } from '../src/log';
import { KeywordIndexRebuild, REBUILD_BATCH } from '../src/storage/sqlite/fts-rebuild';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import type { Store } from '../src/storage/store';
import { percentile, query, seeded } from './lib/corpus';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    queries: { type: 'string', default: '1000' },
    limit: { type: 'string', default: '100' },
    'rebuild-child': { type: 'string' },
  },
});

if (values['rebuild-child']) {
  // The child: the background rebuild as the learning worker runs it, one batch a turn of the loop.
  const db = openDatabase(values['rebuild-child'], Date.now());
  const rebuild = new KeywordIndexRebuild(db, createLogger('silent'));
  const batches: number[] = [];
  const cpu = process.cpuUsage();
  const started = performance.now();
  for (let more = true; more; await new Promise((resolve) => setImmediate(resolve))) {
    const t = performance.now();
    more = rebuild.step();
    batches.push(performance.now() - t);
  }
  const total = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const sorted = [...batches].sort((a, b) => a - b);
  process.stdout.write(
    JSON.stringify({
      total,
      cpu: (used.user + used.system) / 1000,
      batches: batches.length,
      p50: percentile(sorted, 50),
      max: sorted.at(-1),
      last: batches.at(-1),
    }),
  );
  process.exit(0);
}

if (!values.store) throw new Error('--store DIR is required');
const queries = Number(values.queries);
const limit = Number(values.limit);
const ms = (x: number) => `${x.toFixed(2)} ms`;

function copyStore(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-fts-bench-'));
  copyFileSync(join(values.store!, 'engram.db'), join(dir, 'engram.db'));
  return dir;
}

/**
 * Keyword searches one at a time, each timed, on every store given in turn (the order alternating),
 * so that a paired comparison sees the same queries under the same load; `until` stops them early.
 */
async function searches(stores: Store[], n: number, until?: () => boolean): Promise<number[][]> {
  const [account] = await stores[0]!.accounts.list();
  const [container] = await stores[0]!.containers.list(account!.id);
  const random = seeded(7);
  const times: number[][] = stores.map(() => []);
  for (let i = 0; i < n && !until?.(); i++) {
    const q = query(random);
    for (let k = 0; k < stores.length; k++) {
      const which = (k + i) % stores.length;
      const t = performance.now();
      await stores[which]!.passages.search(account!.id, [container!.id], q, limit);
      times[which]!.push(performance.now() - t);
    }
    // Let the child's result in, as an HTTP thread would between requests.
    if (until) await new Promise((resolve) => setImmediate(resolve));
  }
  return times.map((t) => t.sort((a, b) => a - b));
}

const line = (label: string, t: number[]) =>
  console.log(
    `${label}: p50 ${ms(percentile(t, 50))}, p95 ${ms(percentile(t, 95))}, max ${ms(t.at(-1)!)} (${t.length} searches)`,
  );

// 1. FTS5's own rebuild of the new index, one transaction over every passage.
{
  const dir = copyStore();
  const db = openDatabase(dir, Date.now());
  const passages = db.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n;
  const cpu = process.cpuUsage();
  const t = performance.now();
  db.run("INSERT INTO passages_stem_fts (passages_stem_fts) VALUES ('rebuild')");
  const used = process.cpuUsage(cpu);
  console.log(`passages: ${passages}; batch: ${REBUILD_BATCH}; search limit: ${limit}`);
  console.log(
    `FTS5 'rebuild' of the stemmed index, one transaction: ${(performance.now() - t).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms)`,
  );
  db.close();
  rmSync(dir, { recursive: true, force: true });
}

// 2. The online rebuild, with searches on the old index before and while it runs.
const dir = copyStore();
const opened = performance.now();
const store = openSqliteStore(openDatabase(dir, Date.now()));
console.log(
  `start on the old store, migration 0008 included (the rebuild left to the background): ${(performance.now() - opened).toFixed(0)} ms`,
);
line('keyword search, old index, nothing else running', (await searches([store], queries))[0]!);
const child = Bun.spawn([process.execPath, import.meta.path, '--rebuild-child', dir], {
  stdout: 'pipe',
  stderr: 'inherit',
});
let finished = false;
void child.exited.then(() => (finished = true));
line(
  'keyword search, old index, during the online rebuild',
  (await searches([store], Number.MAX_SAFE_INTEGER, () => finished))[0]!,
);
const report = JSON.parse(await new Response(child.stdout as ReadableStream).text()) as {
  total: number;
  cpu: number;
  batches: number;
  p50: number;
  max: number;
  last: number;
};
console.log(
  `online rebuild: ${(report.total / 1000).toFixed(2)} s (CPU ${(report.cpu / 1000).toFixed(2)} s) in ${report.batches} transactions; a batch p50 ${ms(report.p50)}, max ${ms(report.max)}; the switch ${ms(report.last)}`,
);

// 3. The same queries on the old index (another copy, its rebuild pending) and on the stemmed one, paired.
const oldDir = copyStore();
const old = openSqliteStore(openDatabase(oldDir, Date.now()));
const [onOld, onNew] = await searches([old, store], queries);
line('keyword search, old index (unicode61), paired', onOld!);
line('keyword search, stemmed index (porter unicode61), paired', onNew!);
await old.close();
await store.close();
rmSync(oldDir, { recursive: true, force: true });
rmSync(dir, { recursive: true, force: true });

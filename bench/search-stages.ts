/**
 * Where a search's time goes, in process, on a seeded store (`search-latency.ts --keep DIR` or
 * `archive-scale.ts --keep DIR`, whose store is DIR/store): the whole search as the server's engine
 * runs it, then each stage of it timed alone over the same queries, and what every call with a key
 * reads before its operation runs. Printed: process CPU and wall time a whole search, then each
 * stage's wall time (the strong query vector's is its thread's round trip), with the load average.
 * Run it from two trees on copies of one store, alternated, to compare them.
 *
 * Keyword search runs on the store's reader thread, as in the server; `--in-thread` runs it on the
 * searching thread instead (the tree before it).
 *
 *   bun bench/search-stages.ts --store DIR [--key KEY] [--queries 400] [--in-thread]
 *
 * The key is DIR/bench-key's (search-latency.ts writes it) unless given (archive-scale.ts keeps it in built.json).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { authenticate } from '../src/auth/credentials';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { createLogger } from '../src/log';
import { askingShare } from '../src/search/asking';
import { ownContentWords } from '../src/search/content-poor';
import { QueryEmbedder } from '../src/search/query-embedder';
import { SearchEngine } from '../src/search/search-engine';
import { openStore } from '../src/storage/open-store';
import { percentile, query, seeded } from './lib/corpus';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    key: { type: 'string' },
    queries: { type: 'string', default: '400' },
    'in-thread': { type: 'boolean' },
  },
});
if (!values.store) throw new Error('usage: bun bench/search-stages.ts --store DIR');
const dir = values.store;
const key = values.key ?? readFileSync(join(dir, 'bench-key'), 'utf8').trim();
const config = loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: dir });
const { store } = await openStore(config, Date.now(), {
  keywordReader: values['in-thread'] ? undefined : createLogger('warn'),
});
const embedders = await createEmbedders(config, { strong: (id) => new QueryEmbedder(id) });
const engine = await SearchEngine.open({ store, log: createLogger('warn'), embedders, dataDir: dir });
await engine.indexes.loaded;
const caller = await authenticate(store, systemClock, key);
const containers = await store.containers.list(caller.accountId);
const ids = containers.map((c) => c.id);
const random = seeded(7);
const queries = Array.from({ length: Number(values.queries) }, () => query(random));
const search = (q: string) => engine.search(caller.accountId, containers, q, 10, 'tr_bench');
for (const q of queries.slice(0, 50)) await search(q);

const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const spent = new Map<string, number>();
const time = async (stage: string, work: () => unknown) => {
  const started = performance.now();
  await work();
  spent.set(stage, (spent.get(stage) ?? 0) + performance.now() - started);
};
const cpu0 = cpuMs();
const walls: number[] = [];
for (const q of queries) {
  const started = performance.now();
  await time('whole search', () => search(q));
  walls.push(performance.now() - started);
}
const cpuPerSearch = (cpuMs() - cpu0) / queries.length;
walls.sort((a, b) => a - b);
for (const q of queries) {
  await time('credential and containers (every call with a key)', () => authenticate(store, systemClock, key));
  await time('strong query vector (its thread, round trip)', () => embedders.strong!.embed([q]));
  await time('fast query vector', () => embedders.fast!.embed([q]));
  await time('keyword search, every container (one query)', () => store.passages.search(caller.accountId, ids, q, 50));
  const [fast] = await embedders.fast!.embed([q]);
  const [strong] = await embedders.strong!.embed([q]);
  await time('fast scan', () => engine.indexes.nearest('fast', fast!, ids, 50));
  await time('strong scan', () => engine.indexes.nearest('strong', strong!, ids, 50));
  const pool = engine.indexes.nearest('fast', fast!, ids, 30).map((h) => h.passageId);
  let hits: { content: string }[] = [];
  await time("the pool's 30 passages read back", async () => {
    hits = await store.passages.getHits(caller.accountId, pool);
  });
  await time('content-poor and asking over them', () =>
    hits.map((h) => [ownContentWords(h.content), askingShare(h.content)]),
  );
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
const each = (ms: number) => `${(ms / queries.length).toFixed(3)} ms`;
console.log(
  `${queries.length} queries, keyword search ${values['in-thread'] ? 'in-thread' : 'on its reader thread'} (load ${load}): process CPU a whole search ${cpuPerSearch.toFixed(2)} ms, wall p50 / p95 / p99 ${[50, 95, 99].map((p) => percentile(walls, p).toFixed(1)).join(' / ')} ms`,
);
for (const [stage, ms] of spent) console.log(`${stage}: ${each(ms)}`);
console.log(
  `peak memory (VmHWM): ${Number(readFileSync('/proc/self/status', 'utf8').match(/VmHWM:\s+(\d+)/)![1]) >> 10} MiB`,
);
await engine.close();
await store.close();

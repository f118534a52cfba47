/**
 * What a search lever adds to a search's CPU, in process, on a seeded store (`search-latency.ts
 * --keep DIR`): the server's engine with the default levers, the lever given off and on, over the
 * same queries, in alternated rounds, printing process CPU a search for each with the load average.
 *
 *   bun bench/lever-cost.ts --store DIR --lever '{"everyTier":1}' [--queries 300] [--rounds 3]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { authenticate } from '../src/auth/credentials';
import { systemClock } from '../src/clock';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { createLogger } from '../src/log';
import { QueryEmbedder } from '../src/search/query-embedder';
import { SearchActivity } from '../src/search/search-activity';
import { SearchEngine } from '../src/search/search-engine';
import { DEFAULT_TUNING, type SearchTuning } from '../src/search/tuning';
import { openStore } from '../src/storage/open-store';
import { query, seeded } from './lib/corpus';

const { values } = parseArgs({
  options: {
    store: { type: 'string' },
    lever: { type: 'string' },
    queries: { type: 'string', default: '300' },
    rounds: { type: 'string', default: '3' },
  },
});
if (!values.store || !values.lever)
  throw new Error('usage: bun bench/lever-cost.ts --store DIR --lever \'{"everyTier":1}\'');
const dir = values.store;
const lever = JSON.parse(values.lever) as Partial<SearchTuning>;
const key = readFileSync(join(dir, 'bench-key'), 'utf8').trim();
const config = loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: dir });
const { store } = await openStore(config, Date.now());
const embedders = await createEmbedders(config, { strong: (id) => new QueryEmbedder(id) });
const log = createLogger('warn');
const activity = new SearchActivity();
// The lever off (its fields 0) and on, the rest as the server runs; the second engine shares the
// first's indexes: only the levers differ.
const off = Object.fromEntries(Object.keys(lever).map((k) => [k, 0]));
const engine = await SearchEngine.open({
  store,
  log,
  embedders,
  dataDir: dir,
  activity,
  tuning: { ...DEFAULT_TUNING, ...off },
});
await engine.indexes.loaded;
const withLever = new SearchEngine(store, log, embedders, engine.indexes, activity, { ...DEFAULT_TUNING, ...lever });
const caller = await authenticate(store, systemClock, key);
const containers = await store.containers.list(caller.accountId);
const random = seeded(7);
const queries = Array.from({ length: Number(values.queries) }, () => query(random));
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
/** Process CPU a search over the queries. */
const round = async (e: SearchEngine) => {
  const started = cpuMs();
  for (const q of queries) await e.search(caller.accountId, containers, q, 10, 'tr_bench');
  return (cpuMs() - started) / queries.length;
};
await round(engine); // warm: the indexes' pages and the model
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
console.log(
  `strong tier ${engine.indexes.count('strong')} passages, fast ${engine.indexes.count('fast')}; lever ${values.lever}`,
);
for (let r = 0; r < Number(values.rounds); r++) {
  const base = await round(engine);
  const levered = await round(withLever);
  console.log(
    `round ${r + 1} (load ${load()}): CPU a search ${base.toFixed(2)} ms without the lever, ${levered.toFixed(2)} ms with it (${(((levered - base) / base) * 100).toFixed(1)} %)`,
  );
}
await engine.close();
await store.close();

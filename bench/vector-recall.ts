/**
 * How much of the exact nearest neighbours the vector index finds: its Hamming scan over 1-bit
 * codes picks candidates and only those are rescored, so a true neighbour whose code looks far is
 * missed. On a store made by another benchmark (search-latency.ts or peak-memory.ts with --keep),
 * each tier's stored vectors are loaded into a VectorIndex as the server loads them, and also kept
 * whole for an exact max-sim ranking of every passage. Queries are generated, embedded by the
 * tier's own model. Prints recall@10 and @50 of the index against the exact ranking, and the index's
 * search time. A tier whose stored vectors are not its model's (peak-memory.ts writes random strong
 * vectors) measures nothing useful: use a store refined for real (search-latency.ts --refine).
 *
 *   bun bench/vector-recall.ts --store DIR [--queries 100] [--tier fast|strong]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { openDatabase } from '../src/storage/sqlite/open';
import { openSqliteStore } from '../src/storage/sqlite/sqlite-store';
import { storedVectorPages } from '../src/storage/passages';
import type { VectorTier } from '../src/storage/store';
import { percentile, query, seeded } from './lib/corpus';
import { scratchIndex } from '../test/helpers/scratch';

const { values } = parseArgs({
  options: { store: { type: 'string' }, queries: { type: 'string', default: '100' }, tier: { type: 'string' } },
});
if (!values.store) throw new Error('--store DIR: a data directory a benchmark kept');
const store = openSqliteStore(openDatabase(values.store, Date.now()));
// The learning side's embedders run on this thread: the strong one is the model itself, not a query thread.
const embedders = await createEmbedders(
  loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: values.store }),
);
const tiers = (values.tier ? [values.tier] : ['fast', 'strong']) as VectorTier[];

for (const tier of tiers) {
  const embedder = embedders[tier]!;
  const index = scratchIndex(embedder.dimensions);
  index.reserve(await store.vectors.countUnits(tier));
  const passages: { id: number; units: Float32Array[] }[] = [];
  let container = '';
  for await (const page of storedVectorPages(store.vectors, tier, 5000)) {
    for (const p of page) {
      index.add(p.passageId, p.containerId, p.vectors);
      container = p.containerId;
      passages.push({ id: p.passageId, units: p.vectors.map((v) => normalised(v)) });
    }
  }
  const random = seeded(99);
  const found = { 10: 0, 50: 0 };
  const times: number[] = [];
  const n = Number(values.queries);
  for (let q = 0; q < n; q++) {
    const [vector] = await embedder.embed([query(random)]);
    const exact = passages
      .map((p) => ({ id: p.id, score: Math.max(...p.units.map((u) => dot(u, vector!))) }))
      .sort((a, b) => b.score - a.score);
    const started = performance.now();
    const hits = index.search(vector!, [container], 50);
    times.push(performance.now() - started);
    for (const k of [10, 50] as const) {
      const truth = new Set(exact.slice(0, k).map((e) => e.id));
      found[k] += hits.slice(0, k).filter((h) => truth.has(h.passageId)).length;
    }
  }
  index.close();
  times.sort((a, b) => a - b);
  const units = passages.reduce((sum, p) => sum + p.units.length, 0);
  console.log(
    `${tier}: ${passages.length} passages, ${units} units; recall against exact max-sim @10 ${(found[10] / (10 * n)).toFixed(3)}, @50 ${(found[50] / (50 * n)).toFixed(3)}; index search p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms (${n} queries)`,
  );
}
await embedders.strong?.close?.();
await store.close();

function normalised(v: Int8Array): Float32Array {
  const norm = Math.hypot(...v) || 1;
  return Float32Array.from(v, (x) => x / norm);
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

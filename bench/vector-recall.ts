/**
 * How much of the exact nearest neighbours the vector index finds: its Hamming scan over 1-bit
 * codes picks candidates and only those are rescored, so a true neighbour whose code looks far is
 * missed; a large index (inverted-lists.ts) scans only the lists nearest the query, and misses
 * what sits in the others. On a store made by another benchmark (search-latency.ts, peak-memory.ts
 * or archive-scale.ts with --keep), each tier's stored vectors are loaded into a VectorIndex as the
 * server loads them, and kept whole (int8) for an exact max-sim ranking of every passage. Each
 * query is searched twice: by the whole scan (before the lists are made) and, where the index is
 * large enough to have them, through its lists. Prints recall@10, @30 and @50 of each against the
 * exact ranking, and the index's search time.
 *
 * Queries are generated and embedded by the tier's own model, or with --stored-queries taken from
 * the store: a random unit's vector with noise half its length (for a tier whose stored vectors are
 * not its model's: archive-scale.ts and peak-memory.ts write synthetic strong vectors).
 *
 * --shares tries other shares of a large index's codes read through its lists (--least 0 drops the
 * least number of codes a search reads, which at 100,000 passages is over a third), --pools other
 * numbers of candidate units rescored (a search rescores 10 a passage asked for: asking for more
 * than the engine's 50 and keeping the top 50 is a larger pool; 0 asks for 50), --reranks the units
 * a passage asked for that the scan shortlists and whose rows are read of those, best by the codes'
 * estimates (code-estimates.ts; 10:10 is the Hamming order alone, as before it). Each line prints
 * the codes a search scanned and the rows it read. Pairs given in turn (10:10,40:5,10:10,40:5)
 * alternate in one process: their CPU a search compares.
 *
 *   bun bench/vector-recall.ts --store DIR [--queries 100] [--tier fast|strong] [--stored-queries] [--shares 0.15,0.35] [--least 0] [--pools 500,1000] [--reranks 10:10,40:5]
 */
import { loadavg } from 'node:os';
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
  options: {
    store: { type: 'string' },
    queries: { type: 'string', default: '100' },
    tier: { type: 'string' },
    'stored-queries': { type: 'boolean', default: false },
    shares: { type: 'string', default: '0.15' },
    least: { type: 'string' },
    pools: { type: 'string', default: '500' },
    reranks: { type: 'string', default: '10:10' },
  },
});
if (!values.store) throw new Error('--store DIR: a data directory a benchmark kept');
const store = openSqliteStore(openDatabase(values.store, Date.now()));
// The learning side's embedders run on this thread: the strong one is the model itself, not a query thread.
const embedders = await createEmbedders(
  loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: values.store }),
);
const tiers = (values.tier ? [values.tier] : ['fast', 'strong']) as VectorTier[];

const KS = [10, 30, 50] as const;
const pools = values.pools.split(',').map(Number);
/** Units a passage asked for shortlisted by the scan : rescored of those (VectorIndex.shortlisted, .rescored). */
const reranks = values.reranks.split(',').map((pair) => pair.split(':').map(Number) as [number, number]);

for (const tier of tiers) {
  const embedder = embedders[tier]!;
  const index = scratchIndex(embedder.dimensions);
  index.reserve(await store.vectors.countUnits(tier));
  // Every unit's int8 vector and its passage, for the exact ranking.
  const ids: number[] = [];
  const rows: Int8Array[] = [];
  const inverse: number[] = [];
  let container = '';
  for await (const page of storedVectorPages(store.vectors, tier, 5000)) {
    for (const p of page) {
      index.add(p.passageId, p.containerId, p.vectors);
      container = p.containerId;
      for (const v of p.vectors) {
        ids.push(p.passageId);
        rows.push(v);
        inverse.push(1 / (Math.hypot(...v) || 1));
      }
    }
  }
  const random = seeded(99);
  const n = Number(values.queries);
  const queries: Float32Array[] = [];
  for (let q = 0; q < n; q++) {
    if (!values['stored-queries']) {
      queries.push((await embedder.embed([query(random)]))[0]!);
      continue;
    }
    const u = Math.floor(random() * rows.length);
    // Uniform noise of variance 1 / (4 × dimensions) a dimension: a vector about half the unit's length.
    const spread = Math.sqrt(3 / embedder.dimensions);
    const noisy = Float32Array.from(rows[u]!, (x) => x * inverse[u]! + (random() - 0.5) * spread);
    const norm = Math.hypot(...noisy);
    queries.push(noisy.map((x) => x / norm));
  }
  const truths = queries.map((vector) => exactRanking(vector, ids, rows, inverse));
  /** What the first whole scan measured found for each query, to compare the others with. */
  const scanned: number[][] = [];
  const measure = (label: string, pool: number, rescored: number) => {
    const found = { 10: 0, 30: 0, 50: 0 };
    const same = { 10: 0, 30: 0, 50: 0 };
    const times: number[] = [];
    let codes = 0;
    const cpu = process.cpuUsage();
    const k = Math.max(50, pool / rescored);
    for (const [q, vector] of queries.entries()) {
      const started = performance.now();
      const hits = index.search(vector, [container], k).slice(0, 50);
      times.push(performance.now() - started);
      codes += index.inverted.lastScanned;
      const ids = hits.map((h) => h.passageId);
      if (scanned.length < queries.length) scanned.push(ids);
      for (const k of KS) {
        const truth = new Set(truths[q]!.slice(0, k));
        found[k] += ids.slice(0, k).filter((id) => truth.has(id)).length;
        const whole = new Set(scanned[q]!.slice(0, k));
        same[k] += ids.slice(0, k).filter((id) => whole.has(id)).length;
      }
    }
    const { user, system } = process.cpuUsage(cpu);
    times.sort((a, b) => a - b);
    const recall = KS.map((k) => `@${k} ${(found[k] / (k * n)).toFixed(3)}`).join(', ');
    const kept = KS.map((k) => `@${k} ${(same[k] / (k * n)).toFixed(3)}`).join(', ');
    console.log(
      `${tier}, ${label}, ${k * index.shortlisted} shortlisted, ${k * rescored} rows read: ${index.count} passages, ${rows.length} units, ${Math.round(codes / n)} codes scanned a search; recall against exact max-sim ${recall}, against the whole scan ${kept}; index search p50 ${percentile(times, 50).toFixed(2)} ms, p95 ${percentile(times, 95).toFixed(2)} ms, CPU ${((user + system) / 1000 / n).toFixed(2)} ms a search (${n} queries, load ${loadavg()[0]!.toFixed(1)})`,
    );
  };
  const measureAll = (label: string) => {
    for (const [shortlisted, rescored] of reranks) {
      index.shortlisted = shortlisted;
      index.rescored = rescored;
      for (const pool of pools) measure(label, pool, rescored);
    }
  };
  measureAll('whole scan');
  const started = performance.now();
  await index.organize();
  console.log(`${tier}: lists made in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (values.least) index.inverted.probedLeast = Number(values.least);
  for (const share of values.shares.split(',').map(Number)) {
    index.inverted.probedShare = share;
    measureAll(`through the lists, ${share * 100} % read`);
  }
  index.close();
}
await embedders.strong?.close?.();
await store.close();

/** The ids of the 50 passages nearest `query` by their best unit's cosine. */
function exactRanking(query: Float32Array, ids: number[], rows: Int8Array[], inverse: number[]): number[] {
  const best = new Map<number, number>();
  for (let u = 0; u < rows.length; u++) {
    const row = rows[u]!;
    let s = 0;
    for (let i = 0; i < row.length; i++) s += row[i]! * query[i]!;
    s *= inverse[u]!;
    if (s > (best.get(ids[u]!) ?? -Infinity)) best.set(ids[u]!, s);
  }
  return [...best]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 50)
    .map(([id]) => id);
}

/**
 * Where the server's misses on REALTALK-odd sit (docs/performance.md, issue 39's error analysis):
 * for each evidence turn the server's default search leaves out of its top 10, its rank in each
 * list fusion takes (keyword, fast tier, strong tier: the first CANDIDATES each), in the fused
 * candidates, and how deep in each list it lies when looked for further (up to 500). A turn in the
 * fused candidates is the levers' to reach; one only below the candidates' depth, fusion's; one
 * in no list's 500, a wording gap.
 *
 *   bun bench/miss-depth.ts --realtalk DIR
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { createLogger } from '../src/log';
import { convexFusion } from '../src/search/fusion';
import { CANDIDATES, FUSION_WEIGHTS, SearchEngine } from '../src/search/search-engine';
import { scratchDir } from '../test/helpers/scratch';
import { ACCOUNT, CONTAINER, learnCorpus, tierIndex } from './lib/learned-corpus';
import { realtalkSet } from './lib/realtalk';

const { values } = parseArgs({ options: { realtalk: { type: 'string' } } });
if (!values.realtalk) throw new Error('--realtalk DIR: the odd-numbered REALTALK chats');
const DEEP = 500;
const set = realtalkSet(values.realtalk);
const embedders = await createEmbedders(loadConfig({ ...process.env, ENGRAM_DATA_DIR: '/nonexistent' }));
if (!embedders.fast || !embedders.strong) throw new Error('both tiers are needed');
const corpus = await learnCorpus(set.documents, embedders);
const { store, keyOf } = corpus;
const engine = await SearchEngine.open({ store, log: createLogger('warn'), embedders, dataDir: scratchDir() });
const index = {
  fast: await tierIndex(store, 'fast', embedders.fast.dimensions),
  strong: await tierIndex(store, 'strong', embedders.strong.dimensions),
};

/** A list's passages (their keys) best first, and their scores. */
const vectorList = async (tier: 'fast' | 'strong', q: string, k: number) => {
  const [query] = await embedders[tier]!.embed([q]);
  const floor = embedders[tier]!.similarityFloor ?? 0;
  return index[tier]
    .search(query!, [CONTAINER.id], k)
    .filter((h) => h.score > floor)
    .map((h) => ({ item: h.passageId, score: h.score }));
};
const rankIn = (list: { item: number }[], key: string) => {
  const i = list.findIndex((h) => keyOf(h.item) === key);
  return i < 0 ? null : i + 1;
};
const where: Record<string, Record<string, number>> = {};
const count = (kind: string, place: string) => {
  where[place] ??= {};
  where[place][kind] = (where[place][kind] ?? 0) + 1;
  where[place].all = (where[place].all ?? 0) + 1;
};
for (const q of set.questions) {
  const top = (await engine.search(ACCOUNT, [CONTAINER], q.question, 10, 'bench')).hits.map((h) => keyOf(h.passageId));
  const deep = {
    keyword: (await store.passages.search(ACCOUNT, CONTAINER.id, q.question, DEEP)).map((h) => ({
      item: h.passageId,
      score: h.score,
    })),
    fast: await vectorList('fast', q.question, DEEP),
    strong: await vectorList('strong', q.question, DEEP),
  };
  const w = FUSION_WEIGHTS.withStrong;
  const fused = convexFusion([
    { hits: deep.keyword.slice(0, CANDIDATES), weight: w.keyword },
    { hits: deep.fast.slice(0, CANDIDATES), weight: w.fast },
    { hits: deep.strong.slice(0, CANDIDATES), weight: w.strong },
  ]);
  for (const e of q.evidence) {
    if (top.includes(e)) {
      count(q.kind, 'found (top 10)');
      continue;
    }
    const ranks = { keyword: rankIn(deep.keyword, e), fast: rankIn(deep.fast, e), strong: rankIn(deep.strong, e) };
    const f = rankIn(fused, e);
    const best = Math.min(...Object.values(ranks).map((r) => r ?? Infinity));
    const place =
      f !== null && f <= 30
        ? "fused 11-30 (the levers' pool)"
        : f !== null
          ? "fused 31+ (in a list's first 50)"
          : best <= 150
            ? "a list's 51-150"
            : best <= DEEP
              ? "a list's 151-500"
              : "no list's first 500";
    count(q.kind, place);
    console.log(JSON.stringify({ kind: q.kind, question: q.question, evidence: e, fused: f, ...ranks }));
  }
}
const kinds = [...new Set(set.questions.map((q) => q.kind)), 'all'];
console.log(`\n| where a missed evidence turn is | ${kinds.join(' | ')} |\n|---|${kinds.map(() => '---|').join('')}`);
for (const [place, c] of Object.entries(where))
  console.log(`| ${place} | ${kinds.map((k) => c[k] ?? 0).join(' | ')} |`);
await engine.indexes.settle();
await corpus.close();

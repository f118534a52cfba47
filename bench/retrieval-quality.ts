/**
 * Retrieval quality of keyword-only, vector-only (each tier) and hybrid search, on the
 * conversational benchmark (bench/conversations/: 5,416 chat turns, 1,036 questions with their
 * evidence turns) or, with `--set quality`, the embedding model's older evaluation sets hidden
 * among generated distractors. Every document is learned by the server's own store, runner and
 * embedders (ENGRAM_EMBEDDER chooses them, as for the server); the table is recall@1/5/10 and
 * MRR@10 per search variant. A variant is one line in `variants` below.
 *
 *   bun bench/retrieval-quality.ts [--set conversations|quality] [--seed 17] [--distractors 5000]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/learning/create-embedder';
import type { Embedder } from '../src/learning/embedder/embedder';
import { createLogger } from '../src/log';
import { convexFusion, reciprocalRankFusion, type Scored } from '../src/search/fusion';
import { CANDIDATES, FUSION_WEIGHTS, SearchEngine } from '../src/search/search-engine';
import type { VectorIndex } from '../src/search/vector-index';
import type { VectorTier } from '../src/storage/store';
import shortSet from '../test/learning/embedder/quality/eval-set.json';
import longSet from '../test/learning/embedder/quality/eval-set-long.json';
import { scratchDir } from '../test/helpers/scratch';
import { generateConversations, turnDocument } from './conversations/generate';
import { documentText, seeded } from './lib/corpus';
import { ACCOUNT, CONTAINER, learnCorpus, tierIndex } from './lib/learned-corpus';
import { type EvalSet, evaluate, formatScores, type Variant } from './lib/retrieval-eval';

const { values } = parseArgs({ options: { set: { type: 'string', default: 'conversations' }, seed: { type: 'string', default: '17' }, distractors: { type: 'string', default: '5000' } } });
const DEPTH = CANDIDATES; // candidates each side, as the server takes

function conversationSet(seed: number): EvalSet {
  const data = generateConversations(seed);
  return {
    name: `conversations (seed ${seed})`,
    documents: data.turns.map((t) => ({ key: t.id, text: turnDocument(t) })),
    questions: data.questions,
  };
}

/** The older sets: one passage a question, among generated distractor documents (5,000 unless --distractors says). */
function qualitySets(): EvalSet[] {
  type Old = { passages: { id: number | string; text: string }[]; questions: { question: string; passage: number | string }[] };
  return ([['short passages', shortSet], ['long passages', longSet]] as [string, Old][]).map(([name, set]) => {
    const random = seeded(3);
    return {
      name,
      documents: [...set.passages.map((p) => ({ key: `eval_${p.id}`, text: p.text })),
        ...Array.from({ length: Number(values.distractors) }, (_, i) => ({ key: `noise_${i}`, text: documentText(random, 300 + Math.floor(random() * 500)) }))],
      questions: set.questions.map((q) => ({ question: q.question, kind: 'single', evidence: [`eval_${q.passage}`] })),
    };
  });
}

const sets = values.set === 'quality' ? qualitySets() : [conversationSet(Number(values.seed))];
// The learning side's embedders: in this process, which is also where the benchmark embeds its queries.
const embedders = await createEmbedders(loadConfig({ ...process.env, ENGRAM_DATA_DIR: '/nonexistent' }), 'learning');
const log = createLogger('warn');

for (const set of sets) {
  const started = performance.now();
  const corpus = await learnCorpus(set.documents, embedders);
  const learnedMs = performance.now() - started;
  const { store } = corpus;

  // Each list is made once a question and shared by the variants that fuse it.
  const memo = <T>(f: (q: string) => Promise<T>) => {
    const seen = new Map<string, Promise<T>>();
    return (q: string) => {
      if (!seen.has(q)) seen.set(q, f(q));
      return seen.get(q)!;
    };
  };
  const keyword = memo(async (q) => (await store.passages.search(ACCOUNT, CONTAINER.id, q, DEPTH)).map((h) => ({ item: h.passageId, score: h.score })));
  /** The vector half of search with one tier: its cosine above the model's floor, best first. */
  const vectorSearch = (tier: VectorTier, embedder: Embedder) => {
    const built: Promise<VectorIndex> = tierIndex(store, tier, embedder.dimensions);
    return memo(async (q) => {
      const [query] = await embedder.embed([q]);
      const index = await built;
      return index.search(query!, [CONTAINER.id], DEPTH).filter((h) => h.score > (embedder.similarityFloor ?? 0)).map((h) => ({ item: h.passageId, score: h.score }));
    });
  };
  /** The server's search (its fusion included) with the given embedders. */
  const server = (tiers: typeof embedders) => {
    const opened = SearchEngine.open(store, log, tiers, scratchDir());
    return async (q: string) => {
      const engine = await opened;
      return (await engine.search(ACCOUNT, [CONTAINER], q, 10, 'bench')).results.map((r) => corpus.passageAt(r.document_id!, r.position)!);
    };
  };
  const fast = embedders.fast && vectorSearch('fast', embedders.fast);
  const strong = embedders.strong && vectorSearch('strong', embedders.strong);
  const ids = (list: Scored<number>[]) => list.map((h) => h.item);
  /** Min-max convex fusion of keyword, fast and strong with these weights (the server's kind). */
  const convex = (kw: number, f: number, st: number): Variant | null => (f && !fast) || (st && !strong) ? null : async (q) =>
    ids(convexFusion([{ hits: await keyword(q), weight: kw }, { hits: f ? await fast!(q) : [], weight: f }, { hits: st ? await strong!(q) : [], weight: st }]));
  /** Division by each list's top score instead of min-max (the first convex fusion tried). */
  const byTop = (kw: number, st: number): Variant | null => strong && (async (q) => {
    const scale = (hits: Scored<number>[], w: number) => hits.map((h) => ({ item: h.item, score: (w * h.score) / hits[0]!.score }));
    const fused = new Map<number, number>();
    for (const h of [...scale(await keyword(q), kw), ...scale(await strong(q), st)]) fused.set(h.item, (fused.get(h.item) ?? 0) + h.score);
    return [...fused].sort((a, b) => b[1] - a[1]).map(([id]) => id);
  });
  const { refined: R, fast: F } = FUSION_WEIGHTS;

  const variants: Record<string, Variant | null> = {
    'keyword only (BM25)': async (q) => ids(await keyword(q)),
    'vector only, fast tier': fast && (async (q) => ids(await fast(q))),
    'vector only, strong tier': strong && (async (q) => ids(await strong(q))),
    'hybrid RRF 1:0.5, fast tier (before issue 17)': fast && (async (q) => ids(reciprocalRankFusion([ids(await keyword(q)), ids(await fast(q))], [1, 0.5]))),
    'hybrid RRF 0.5:1, strong tier': strong && (async (q) => ids(reciprocalRankFusion([ids(await keyword(q)), ids(await strong(q))], [0.5, 1]))),
    'hybrid RRF 0.5:0.5:1, both tiers': fast && strong && (async (q) => ids(reciprocalRankFusion([ids(await keyword(q)), ids(await fast(q)), ids(await strong(q))], [0.5, 0.5, 1]))),
    'convex by top score 0.5:0.5, strong tier': byTop(0.5, 0.5),
    'convex by top score 0.2:0.8, strong tier': byTop(0.2, 0.8),
    'convex min-max 0.5:0.5, fast tier': convex(0.5, 0.5, 0),
    [`convex min-max ${F.keyword}:${F.fast}, fast tier (the server, ENGRAM_EMBEDDER=fast)`]: convex(F.keyword, F.fast, 0),
    'convex min-max 0.3:0.7, strong tier': convex(0.3, 0, 0.7),
    'convex min-max 0.4:0.6, strong tier': convex(0.4, 0, 0.6),
    'convex min-max 0.3:0.3:0.4, both tiers': convex(0.3, 0.3, 0.4),
    'convex min-max 0.2:0.3:0.5, both tiers': convex(0.2, 0.3, 0.5),
    [`convex min-max ${R.keyword}:${R.fast}:${R.strong}, both tiers (the server's weights)`]: convex(R.keyword, R.fast, R.strong),
    'the server, ENGRAM_EMBEDDER=fast (SearchEngine)': embedders.fast && server({ fast: embedders.fast, strong: null }),
    'the server, both tiers, all refined (SearchEngine)': embedders.strong && server(embedders),
  };
  const present = Object.fromEntries(Object.entries(variants).filter((e): e is [string, Variant] => e[1] !== null));
  const results = await evaluate(set, present, corpus.keyOf);
  await corpus.close();
  console.log(`\n${set.name}: ${set.documents.length} documents, ${set.questions.length} questions; learned in ${(learnedMs / 1000).toFixed(1)} s, ` +
    `searched in ${((performance.now() - started - learnedMs) / 1000).toFixed(1)} s; embedders: ${embedders.fast?.id ?? 'none'}, ${embedders.strong?.id ?? 'no strong tier'}\n`);
  console.log(formatScores(results));
}

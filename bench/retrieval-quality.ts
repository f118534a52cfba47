/**
 * Retrieval quality of keyword-only, vector-only (each tier) and hybrid search, on the
 * conversational benchmark (bench/conversations/: 5,416 chat turns, 1,036 questions with their
 * evidence turns) or, with `--set quality`, the embedding model's older evaluation sets hidden
 * among generated distractors. Every document is learned by the server's own store, runner and
 * embedders (ENGRAM_EMBEDDER chooses them, as for the server); the table is recall@1/5/10 and
 * MRR@10 per search variant. A variant is one line in `variants` below.
 *
 *   bun bench/retrieval-quality.ts [--set conversations|quality] [--seed 17]
 */
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/learning/create-embedder';
import type { Embedder } from '../src/learning/embedder/embedder';
import { createLogger } from '../src/log';
import { reciprocalRankFusion } from '../src/search/fusion';
import { SearchEngine } from '../src/search/search-engine';
import type { VectorIndex } from '../src/search/vector-index';
import type { VectorTier } from '../src/storage/store';
import shortSet from '../test/learning/embedder/quality/eval-set.json';
import longSet from '../test/learning/embedder/quality/eval-set-long.json';
import { generateConversations, turnDocument } from './conversations/generate';
import { documentText, seeded } from './lib/corpus';
import { ACCOUNT, CONTAINER, learnCorpus, tierIndex } from './lib/learned-corpus';
import { type EvalSet, evaluate, formatScores, type Variant } from './lib/retrieval-eval';

const { values } = parseArgs({ options: { set: { type: 'string', default: 'conversations' }, seed: { type: 'string', default: '17' } } });
const DEPTH = 100; // candidates each side, as SearchEngine takes (CANDIDATES)

function conversationSet(seed: number): EvalSet {
  const data = generateConversations(seed);
  return {
    name: `conversations (seed ${seed})`,
    documents: data.turns.map((t) => ({ key: t.id, text: turnDocument(t) })),
    questions: data.questions,
  };
}

/** The older sets: one passage a question, among 5,000 generated distractor documents. */
function qualitySets(): EvalSet[] {
  type Old = { passages: { id: number | string; text: string }[]; questions: { question: string; passage: number | string }[] };
  return ([['short passages', shortSet], ['long passages', longSet]] as [string, Old][]).map(([name, set]) => {
    const random = seeded(3);
    return {
      name,
      documents: [...set.passages.map((p) => ({ key: `eval_${p.id}`, text: p.text })),
        ...Array.from({ length: 5000 }, (_, i) => ({ key: `noise_${i}`, text: documentText(random, 300 + Math.floor(random() * 500)) }))],
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

  const keyword = (q: string) => store.searchPassages(ACCOUNT, CONTAINER.id, q, DEPTH).map((h) => h.passageId);
  /** The vector half of search with one tier: its cosine above the model's floor, best first. */
  const vectorSearch = (tier: VectorTier, embedder: Embedder) => {
    const index: VectorIndex = tierIndex(store, tier, embedder.dimensions);
    return async (q: string) => {
      const [query] = await embedder.embed([q]);
      return index.search(query!, [CONTAINER.id], DEPTH).filter((h) => h.score > (embedder.similarityFloor ?? 0)).map((h) => h.passageId);
    };
  };
  /** The server's search (its fusion included) with the given embedders. */
  const server = (tiers: typeof embedders) => {
    const engine = SearchEngine.open(store, log, tiers);
    return async (q: string) => (await engine.search(ACCOUNT, [CONTAINER], q, 10, 'bench')).results
      .map((r) => corpus.passageAt(r.document_id!, r.position)!);
  };
  const fast = embedders.fast && vectorSearch('fast', embedders.fast);
  const strong = embedders.strong && vectorSearch('strong', embedders.strong);

  const variants: Record<string, Variant | null> = {
    'keyword only (BM25)': keyword,
    'vector only, fast tier': fast,
    'vector only, strong tier': strong,
    'hybrid RRF 1:0.5, fast tier (before issue 17)': fast && (async (q) => reciprocalRankFusion([keyword(q), await fast(q)], [1, 0.5]).map((f) => f.item)),
    'hybrid, fast tier (the server, ENGRAM_EMBEDDER=fast)': embedders.fast && server({ fast: embedders.fast, strong: null }),
    'hybrid, both tiers, all refined (the server)': embedders.strong && server(embedders),
  };
  const present = Object.fromEntries(Object.entries(variants).filter((e): e is [string, Variant] => e[1] !== null));
  const results = await evaluate(set, present, corpus.keyOf);
  corpus.close();
  console.log(`\n${set.name}: ${set.documents.length} documents, ${set.questions.length} questions; learned in ${(learnedMs / 1000).toFixed(1)} s, ` +
    `searched in ${((performance.now() - started - learnedMs) / 1000).toFixed(1)} s; embedders: ${embedders.fast?.id ?? 'none'}, ${embedders.strong?.id ?? 'no strong tier'}\n`);
  console.log(formatScores(results));
}

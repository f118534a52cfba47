/**
 * What the strong tier's query embedding costs on every search, and what a cheaper query encoder
 * would give and lose. The cheaper one tried: the fast tier's query vector (the static model,
 * ~0.05 ms) mapped into the strong model's space by one linear map, fitted by ridge regression on
 * the dev set's own units (each strong unit's text embedded by both models). It is fitted on the
 * passages and used on questions, so what it loses here is, if anything, less than on text it has
 * not seen. Printed: the query embedding's CPU time each way, and recall@1/5/10 / MRR@10 of the
 * strong tier alone and of the server's search (both tiers, all refined) with each.
 *
 *   bun bench/query-encoder.ts [--realtalk DIR] [--seed 17] [--ridge 0.1]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import { type Embedder, normalizeInPlace } from '../src/embedders/embedder';
import { embeddingUnits } from '../src/learning/embedding-units';
import { createLogger } from '../src/log';
import { SearchEngine } from '../src/search/search-engine';
import type { SqliteStore } from '../src/storage/sqlite/sqlite-store';
import { scratchDir } from '../test/helpers/scratch';
import { generateConversations, turnDocument } from './conversations/generate';
import { ACCOUNT, CONTAINER, type LearnedCorpus, learnCorpus, tierIndex } from './lib/learned-corpus';
import { realtalkSet } from './lib/realtalk';
import { type EvalSet, evaluate, formatScores, type Variant } from './lib/retrieval-eval';

const { values } = parseArgs({
  options: {
    realtalk: { type: 'string', default: process.env.ENGRAM_REALTALK },
    seed: { type: 'string', default: '17' },
    ridge: { type: 'string', default: '0.1' },
  },
});
const config = loadConfig({ ...process.env, ENGRAM_EMBEDDER: 'builtin', ENGRAM_DATA_DIR: '/nonexistent' });
const embedders = await createEmbedders(config);
const fast = embedders.fast!;
const strong = embedders.strong!;
const conversations = generateConversations(Number(values.seed));
const sets: EvalSet[] = [
  {
    name: `conversations (seed ${values.seed})`,
    documents: conversations.turns.map((t) => ({ key: t.id, text: turnDocument(t) })),
    questions: conversations.questions,
  },
  ...(values.realtalk ? [realtalkSet(values.realtalk)] : []),
];
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
console.log(`load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);

for (const set of sets) {
  const corpus = await learnCorpus(set.documents, embedders);
  const map = await fitMap(corpus, Number(values.ridge));
  const projected: Embedder = {
    id: strong.id,
    dimensions: strong.dimensions,
    similarityFloor: strong.similarityFloor,
    embed: async (texts) => (await fast.embed(texts)).map((v) => map(v)),
  };
  const questions = set.questions.map((q) => q.question);
  const cost = async (e: Embedder) => {
    const before = cpuMs();
    for (const q of questions) await e.embed([q]);
    return (cpuMs() - before) / questions.length;
  };
  await strong.embed(['warm-up']);
  console.log(
    `\n${set.name}: ${questions.length} questions; query embedding, CPU a query: the strong model ${(await cost(strong)).toFixed(2)} ms, the fast vector mapped ${(await cost(projected)).toFixed(3)} ms`,
  );
  const strongIndex = tierIndex(corpus.store, 'strong', strong.dimensions);
  const vectorOnly =
    (e: Embedder): Variant =>
    async (q) => {
      const [v] = await e.embed([q]);
      return (await strongIndex)
        .search(v!, [CONTAINER.id], 50)
        .filter((h) => h.score > (e.similarityFloor ?? 0))
        .map((h) => h.passageId);
    };
  /** The engines opened, whose indexes stop following the store before it closes. */
  const engines: Promise<SearchEngine>[] = [];
  const server = (e: Embedder | null): Variant => {
    const opened = SearchEngine.open({
      store: corpus.store,
      log: createLogger('warn'),
      embedders: { fast, strong: e },
      dataDir: scratchDir(),
    });
    engines.push(opened);
    return async (q) =>
      (await (await opened).search(ACCOUNT, [CONTAINER], q, 10, 'bench')).hits.map(
        (r) => (r.memoryId ? corpus.factPassage(r.memoryId) : corpus.passageAt(r.documentId!, r.position))!,
      );
  };
  const results = await evaluate(
    set,
    {
      'strong tier alone, the model embeds the query': vectorOnly(strong),
      'strong tier alone, the fast vector mapped': vectorOnly(projected),
      'the server, both tiers, the model embeds the query': server(strong),
      'the server, both tiers, the fast vector mapped': server(projected),
      'the server, fast tier alone': server(null),
    },
    corpus.keyOf,
  );
  console.log(formatScores(results));
  for (const engine of engines) await (await engine).indexes.settle();
  await corpus.close();
}

/**
 * The ridge regression from the fast tier's 256 dimensions to the strong tier's 384, fitted on
 * every strong unit of the corpus (its text embedded by the fast model, its strong vector as stored):
 * W = (XᵀX + λn·I)⁻¹ XᵀY. Returns the map, which normalises what it gives.
 */
async function fitMap(corpus: LearnedCorpus, ridge: number): Promise<(v: Float32Array) => Float32Array> {
  const sqlite = corpus.store as SqliteStore;
  const rows = await sqlite.withConnection((raw) =>
    raw
      .query<{ id: number; title: string | null; content: string }, []>('SELECT id, title, content FROM passages')
      .all(),
  );
  const stored = new Map<number, Int8Array[]>();
  for (const p of await corpus.store.vectors.get(
    'strong',
    rows.map((r) => r.id),
  ))
    stored.set(p.passageId, p.vectors);
  const d = fast.dimensions;
  const s = strong.dimensions;
  const xtx = new Float64Array(d * d);
  const xty = new Float64Array(d * s);
  let n = 0;
  for (const p of rows) {
    const targets = stored.get(p.id);
    const units = embeddingUnits(p, 'strong');
    if (!targets || targets.length !== units.length) continue;
    const xs = await fast.embed(units);
    for (const [u, x] of xs.entries()) {
      const y = normalizeInPlace(Float32Array.from(targets[u]!));
      for (let i = 0; i < d; i++) {
        const xi = x[i]!;
        if (xi === 0) continue;
        for (let j = 0; j < d; j++) xtx[i * d + j]! += xi * x[j]!;
        for (let j = 0; j < s; j++) xty[i * s + j]! += xi * y[j]!;
      }
      n++;
    }
  }
  for (let i = 0; i < d; i++) xtx[i * d + i]! += (ridge * n) / d;
  const w = solve(xtx, xty, d, s);
  return (v) => {
    const out = new Float32Array(s);
    for (let i = 0; i < d; i++) {
      const vi = v[i]!;
      if (vi !== 0) for (let j = 0; j < s; j++) out[j]! += vi * w[i * s + j]!;
    }
    return normalizeInPlace(out);
  };
}

/** Solves A·W = B for W (A d×d symmetric positive definite, B d×s) by Gaussian elimination. */
function solve(a: Float64Array, b: Float64Array, d: number, s: number): Float64Array {
  for (let k = 0; k < d; k++) {
    const pivot = a[k * d + k]!;
    for (let i = k + 1; i < d; i++) {
      const f = a[i * d + k]! / pivot;
      if (f === 0) continue;
      for (let j = k; j < d; j++) a[i * d + j]! -= f * a[k * d + j]!;
      for (let j = 0; j < s; j++) b[i * s + j]! -= f * b[k * s + j]!;
    }
  }
  const w = new Float64Array(d * s);
  for (let i = d - 1; i >= 0; i--) {
    for (let j = 0; j < s; j++) {
      let sum = b[i * s + j]!;
      for (let k = i + 1; k < d; k++) sum -= a[i * d + k]! * w[k * s + j]!;
      w[i * s + j] = sum / a[i * d + i]!;
    }
  }
  return w;
}

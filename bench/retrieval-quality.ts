/**
 * Retrieval quality of keyword-only, vector-only (each tier) and hybrid search, and of the server's
 * search with each of its levers switched off and on, on the dev sets: the conversational benchmark
 * (bench/conversations/: 5,416 chat turns, 1,036 questions with their evidence turns), generated
 * here; REALTALK's odd-numbered chats (bench/lib/realtalk.ts: real people's messages, one document a
 * message, questions labelled with the turns that answer them) and PerLTQA (bench/lib/perltqa.ts:
 * characters' memories, one document per memory item), which this project did not make and does not
 * ship: pass their paths. With `--set quality`, the embedding model's older evaluation sets hidden
 * among generated distractors. Every document is learned by the server's own store, runner and
 * embedders (ENGRAM_EMBEDDER chooses them, as for the server); the table is recall@1/5/10 and MRR@10
 * per search variant, and recall@5 / recall@10 / MRR@10 by question kind. A variant is one line in
 * `variants` below.
 *
 *   bun bench/retrieval-quality.ts [--set all|conversations|realtalk|perltqa|quality] [--realtalk DIR]
 *                                  [--perltqa DIR] [--characters N] [--seed 17] [--distractors 5000]
 *                                  [--misses FILE] [--extract] [--strong-vectors DIR] [--refined 0,50,100]
 *
 * --extract learns with fact extraction by the model the environment names (ENGRAM_MODEL_URL,
 * ENGRAM_MODEL, as for the server): a fact found by search counts as its source document. It prints
 * the facts saved and the model's time a document.
 *
 * --strong-vectors DIR measures a candidate strong model before it is built in: the strong tier's
 * vectors are read from DIR (bench/lib/vectors-file.ts), made by bench/candidate-embed.py from the
 * texts a first run writes there.
 *
 * --exchange fast|strong measures the exchange in one vector tier (dropped, docs/performance.md): each
 * one-turn document with neighbouring turns (the turns before and after it in the container, sent
 * within six hours, or on the same day when a header gives only the day) gets one more embedding
 * unit of that tier, the turn between its neighbours. The exchange in the keyword index is the
 * server's own (src/learning/exchange.ts): every row has it.
 *
 * VARIANTS=PATTERN in the environment runs only the rows whose name matches it (a regular expression).
 *
 * --misses FILE writes, for the server's default search, every question whose evidence is not all in
 * the top 10, with what was found instead (JSON lines), for looking at what kind of miss each is.
 */
import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FactExtractor } from '../src/learning/fact-extractor';
import { ModelClient } from '../src/language-model/model-client';
import { loadConfig } from '../src/config';
import { createEmbedders } from '../src/embedders/create-embedders';
import type { Embedder } from '../src/embedders/embedder';
import { createLogger } from '../src/log';
import { convexFusion, reciprocalRankFusion, type Scored } from '../src/search/fusion';
import { CANDIDATES, FUSION_WEIGHTS, SearchEngine } from '../src/search/search-engine';
import { DEFAULT_TUNING, type SearchTuning } from '../src/search/tuning';
import type { VectorIndex } from '../src/search/vector-index';
import type { SqliteStore } from '../src/storage/sqlite/sqlite-store';
import type { VectorTier } from '../src/storage/store';
import shortSet from '../test/embedders/quality/eval-set.json';
import longSet from '../test/embedders/quality/eval-set-long.json';
import { scratchDir } from '../test/helpers/scratch';
import { generateConversations, turnDocument } from './conversations/generate';
import { documentText, seeded } from './lib/corpus';
import { ACCOUNT, CONTAINER, type LearnedCorpus, learnCorpus, tierIndex } from './lib/learned-corpus';
import { PERLTQA_HOWTO, perltqaFolder, perltqaSet } from './lib/perltqa';
import { REALTALK_HOWTO, type RealtalkSet, realtalkSet } from './lib/realtalk';
import { vectorsFile } from './lib/vectors-file';
import { storedVector } from '../src/storage/stored-vector';
import { type EvalSet, evaluate, formatScores, scoreRanking, type Variant } from './lib/retrieval-eval';

const { values } = parseArgs({
  options: {
    set: { type: 'string', default: 'all' },
    seed: { type: 'string', default: '17' },
    distractors: { type: 'string', default: '5000' },
    perltqa: { type: 'string', default: process.env.ENGRAM_PERLTQA },
    realtalk: { type: 'string', default: process.env.ENGRAM_REALTALK },
    'strong-vectors': { type: 'string' },
    characters: { type: 'string' },
    misses: { type: 'string' },
    extract: { type: 'boolean', default: false },
    refined: { type: 'string' },
    exchange: { type: 'string' },
  },
});
/** --refined 0,50,100: the server's search over the store with only these percentages of passages refined. */
const refinedShares = (values.refined ?? '')
  .split(',')
  .filter(Boolean)
  .map(Number)
  .sort((a, b) => b - a);
/** Each lever's strengths tried (bench/retrieval-quality.ts's rows; the server's are in DEFAULT_TUNING). */
const STRENGTHS: Record<keyof SearchTuning, number[]> = {
  contentPoor: [0.2, 0.4, 0.6],
  asking: [0.1, 0.2, 0.4],
  dated: [0.1, 0.2, 0.4],
  speaker: [0.1, 0.2, 0.4],
  everyTier: [1],
};

/** VARIANTS=PATTERN: only the rows whose name matches (e.g. `^levers:`), for a shorter run. */
const only = new RegExp(process.env.VARIANTS ?? '');

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
  type Old = {
    passages: { id: number | string; text: string }[];
    questions: { question: string; passage: number | string }[];
  };
  return (
    [
      ['short passages', shortSet],
      ['long passages', longSet],
    ] as [string, Old][]
  ).map(([name, set]) => {
    const random = seeded(3);
    return {
      name,
      documents: [
        ...set.passages.map((p) => ({ key: `eval_${p.id}`, text: p.text })),
        ...Array.from({ length: Number(values.distractors) }, (_, i) => ({
          key: `noise_${i}`,
          text: documentText(random, 300 + Math.floor(random() * 500)),
        })),
      ],
      questions: set.questions.map((q) => ({ question: q.question, kind: 'single', evidence: [`eval_${q.passage}`] })),
    };
  });
}

/** PerLTQA when its files are at hand; otherwise how to get them, and the run goes on without it. */
function perltqa(): EvalSet[] {
  if (values.perltqa && perltqaFolder(values.perltqa))
    return [perltqaSet(values.perltqa, values.characters ? Number(values.characters) : Infinity)];
  console.log(`\nPerLTQA skipped: ${values.perltqa ? `no data at ${values.perltqa}. ` : ''}${PERLTQA_HOWTO}`);
  return [];
}

/** REALTALK's odd-numbered chats when a folder is given; otherwise how to get them, and the run goes on without them. */
function realtalk(): EvalSet[] {
  if (!values.realtalk) {
    console.log(`\nREALTALK skipped: ${REALTALK_HOWTO}`);
    return [];
  }
  const set = realtalkSet(values.realtalk);
  console.log(`\n${set.name}: ${set.unplaced} questions left out, their evidence naming no turn of the data`);
  return [set];
}

const wanted = (name: string) => values.set === 'all' || values.set === name;
const sets =
  values.set === 'quality'
    ? qualitySets()
    : [
        ...(wanted('conversations') ? [conversationSet(Number(values.seed))] : []),
        ...(wanted('realtalk') ? realtalk() : []),
        ...(wanted('perltqa') ? perltqa() : []),
      ];
if (values.misses) writeFileSync(values.misses, '');
// The learning side's embedders: in this process, which is also where the benchmark embeds its queries.
const config = loadConfig({ ...process.env, ENGRAM_DATA_DIR: '/nonexistent' });
const builtIn = await createEmbedders(config);
const log = createLogger('warn');
if (values.extract && !config.model)
  throw new Error('--extract needs a model: set ENGRAM_MODEL_URL and ENGRAM_MODEL as for the server');
const extractor = values.extract ? new FactExtractor(new ModelClient(config.model!), builtIn.fast) : null;

for (const set of sets) {
  const embedders = values['strong-vectors'] ? candidateTiers(set) : builtIn;
  if (!embedders) continue;
  const started = performance.now();
  const corpus = await learnCorpus(set.documents, embedders, extractor);
  const learnedMs = performance.now() - started;
  if (extractor) {
    console.log(
      `\n${set.name}: facts extracted by ${config.model!.model}: ${corpus.facts.container} in the container, ${corpus.facts.profile} standing (profile); ` +
        `learning took ${(learnedMs / set.documents.length / 1000).toFixed(1)} s a document with the model`,
    );
  }
  const { store } = corpus;
  const exchangeTier = values.exchange === 'fast' || values.exchange === 'strong' ? values.exchange : null;
  if (exchangeTier && embedders[exchangeTier])
    await exchangeVectors(set, corpus, exchangeTier, embedders[exchangeTier]);

  // Each list is made once a question and shared by the variants that fuse it.
  const memo = <T>(f: (q: string) => Promise<T>) => {
    const seen = new Map<string, Promise<T>>();
    return (q: string) => {
      if (!seen.has(q)) seen.set(q, f(q));
      return seen.get(q)!;
    };
  };
  const keyword = memo(async (q) =>
    (await store.passages.search(ACCOUNT, [CONTAINER.id], q, DEPTH)).map((h) => ({
      item: h.passageId,
      score: h.score,
    })),
  );
  /** The vector half of search with one tier: its cosine above the model's floor, best first. */
  const vectorSearch = (tier: VectorTier, embedder: Embedder) => {
    const built: Promise<VectorIndex> = tierIndex(store, tier, embedder.dimensions);
    return memo(async (q) => {
      const [query] = await embedder.embed([q]);
      const index = await built;
      return index
        .search(query!, [CONTAINER.id], DEPTH)
        .filter((h) => h.score > (embedder.similarityFloor ?? 0))
        .map((h) => ({ item: h.passageId, score: h.score }));
    });
  };
  /** The engines opened, whose indexes stop following the store before it closes. */
  const engines: Promise<SearchEngine>[] = [];
  /** The server's search (its fusion and levers included) with the given embedders and tuning. */
  const server = (tiers: typeof embedders, tuning: SearchTuning = DEFAULT_TUNING) => {
    const opened = SearchEngine.open({ store, log, embedders: tiers, dataDir: scratchDir(), tuning });
    engines.push(opened);
    return async (q: string) => {
      const engine = await opened;
      return (await engine.search(ACCOUNT, [CONTAINER], q, 10, 'bench')).hits.map(
        (r) => (r.memoryId ? corpus.factPassage(r.memoryId) : corpus.passageAt(r.documentId!, r.position))!,
      );
    };
  };
  /** The server's search with one lever set apart from the default (both tiers when refined, else the fast tier). */
  const lever = (change: Partial<SearchTuning>) =>
    server(embedders.strong ? embedders : { fast: embedders.fast, strong: null }, { ...DEFAULT_TUNING, ...change });
  const fast = embedders.fast && vectorSearch('fast', embedders.fast);
  const strong = embedders.strong && vectorSearch('strong', embedders.strong);
  const ids = (list: Scored<number>[]) => list.map((h) => h.item);
  /** Min-max convex fusion of keyword, fast and strong with these weights (the server's kind). */
  const convex = (kw: number, f: number, st: number): Variant | null =>
    (f && !fast) || (st && !strong)
      ? null
      : async (q) =>
          ids(
            convexFusion([
              { hits: await keyword(q), weight: kw },
              { hits: f ? await fast!(q) : [], weight: f },
              { hits: st ? await strong!(q) : [], weight: st },
            ]),
          );
  /** Division by each list's top score instead of min-max (the first convex fusion tried). */
  const byTop = (kw: number, st: number): Variant | null =>
    strong &&
    (async (q) => {
      const scale = (hits: Scored<number>[], w: number) =>
        hits.map((h) => ({ item: h.item, score: (w * h.score) / hits[0]!.score }));
      const fused = new Map<number, number>();
      for (const h of [...scale(await keyword(q), kw), ...scale(await strong(q), st)])
        fused.set(h.item, (fused.get(h.item) ?? 0) + h.score);
      return [...fused].sort((a, b) => b[1] - a[1]).map(([id]) => id);
    });
  const { withStrong: R, fastOnly: F } = FUSION_WEIGHTS;

  const variants: Record<string, Variant | null> = {
    'keyword only (BM25)': async (q) => ids(await keyword(q)),
    'vector only, fast tier': fast && (async (q) => ids(await fast(q))),
    'vector only, strong tier': strong && (async (q) => ids(await strong(q))),
    'hybrid RRF 1:0.5, fast tier (before issue 17)':
      fast && (async (q) => ids(reciprocalRankFusion([ids(await keyword(q)), ids(await fast(q))], [1, 0.5]))),
    'hybrid RRF 0.5:1, strong tier':
      strong && (async (q) => ids(reciprocalRankFusion([ids(await keyword(q)), ids(await strong(q))], [0.5, 1]))),
    'hybrid RRF 0.5:0.5:1, both tiers':
      fast &&
      strong &&
      (async (q) =>
        ids(reciprocalRankFusion([ids(await keyword(q)), ids(await fast(q)), ids(await strong(q))], [0.5, 0.5, 1]))),
    'convex by top score 0.5:0.5, strong tier': byTop(0.5, 0.5),
    'convex by top score 0.2:0.8, strong tier': byTop(0.2, 0.8),
    'convex min-max 0.5:0.5, fast tier': convex(0.5, 0.5, 0),
    [`convex min-max ${F.keyword}:${F.fast}, fast tier (the server, ENGRAM_EMBEDDER=fast)`]: convex(
      F.keyword,
      F.fast,
      0,
    ),
    'convex min-max 0.3:0.7, strong tier': convex(0.3, 0, 0.7),
    'convex min-max 0.4:0.6, strong tier': convex(0.4, 0, 0.6),
    'convex min-max 0.3:0.2:0.5, both tiers (the release before issue 39)': convex(0.3, 0.2, 0.5),
    'convex min-max 0.2:0.3:0.5, both tiers': convex(0.2, 0.3, 0.5),
    [`convex min-max ${R.keyword}:${R.fast}:${R.strong}, both tiers (the server's weights)`]: convex(
      R.keyword,
      R.fast,
      R.strong,
    ),
    'the server, ENGRAM_EMBEDDER=fast (SearchEngine)': embedders.fast && server({ fast: embedders.fast, strong: null }),
    'the server, both tiers, all refined (SearchEngine)': embedders.strong && server(embedders),
    ...leverVariants(lever),
  };
  const present = Object.fromEntries(
    Object.entries(variants).filter((e): e is [string, Variant] => e[1] !== null && only.test(e[0])),
  );
  const results = await evaluate(set, present, corpus.keyOf);
  if (values.misses) await writeMisses(set, lever({}), corpus.keyOf);
  if (embedders.strong)
    for (const share of refinedShares)
      Object.assign(results, await partlyRefined(share, set, corpus, embedders, server));
  for (const engine of engines) await (await engine).indexes.settle();
  await corpus.close();
  console.log(
    `\n${set.name}: ${set.documents.length} documents, ${set.questions.length} questions; learned in ${(learnedMs / 1000).toFixed(1)} s, ` +
      `searched in ${((performance.now() - started - learnedMs) / 1000).toFixed(1)} s; embedders: ${embedders.fast?.id ?? 'none'}, ${embedders.strong?.id ?? 'no strong tier'}\n`,
  );
  console.log(formatScores(results));
}

/**
 * The fast tier built in and a candidate strong model's vectors from --strong-vectors DIR
 * (vectors-file.ts); null, after saying what to embed, when the set's vectors are not there yet.
 */
function candidateTiers(set: EvalSet): typeof builtIn | null {
  const stem = join(values['strong-vectors']!, set.name.replace(/\W+/g, '-').replace(/^-|-$/g, '').toLowerCase());
  const strong = vectorsFile(stem, set);
  if (!strong)
    console.log(
      `\n${set.name}: no candidate vectors yet; embed the texts with\n  python bench/candidate-embed.py ${stem}\nand run again.`,
    );
  return strong && { fast: builtIn.fast, strong };
}

/**
 * --refined: the server's search, both tiers, while refinement has reached `share` percent of the
 * passages, a seeded random choice of them (refinement's own order depends on when each was
 * learned; here any passage may be among the refined), as against the fast tier alone above. The
 * strong vectors of the rest are deleted from the benchmark's store: shares are taken largest first.
 */
async function partlyRefined(
  share: number,
  set: EvalSet,
  corpus: LearnedCorpus,
  tiers: typeof builtIn,
  server: (tiers: typeof builtIn) => Variant,
): Promise<Awaited<ReturnType<typeof evaluate>>> {
  const sqlite = corpus.store as SqliteStore;
  const refined = await sqlite.withConnection((raw) =>
    raw
      .query<{ id: number }, []>(
        "SELECT DISTINCT passage_id AS id FROM passage_vectors WHERE tier = 'strong' ORDER BY 1",
      )
      .all()
      .map((r) => r.id),
  );
  const random = seeded(share + 1);
  const shuffled = refined.map((id) => ({ id, r: random() })).sort((a, b) => a.r - b.r);
  const keep = Math.round((share / 100) * (await corpus.store.passages.count()));
  const drop = shuffled.slice(keep).map((p) => p.id);
  await sqlite.withConnection((raw) => {
    for (let i = 0; i < drop.length; i += 500)
      raw.run(
        `DELETE FROM passage_vectors WHERE tier = 'strong' AND passage_id IN (${drop.slice(i, i + 500).join(',')})`,
      );
  });
  return evaluate(set, { [`the server, both tiers, ${share} % refined (SearchEngine)`]: server(tiers) }, corpus.keyOf);
}

/**
 * The server's search with no lever, each lever alone at each strength tried, as configured
 * (DEFAULT_TUNING), and as configured with each lever left off added: the rows of
 * docs/performance.md's lever table.
 */
function leverVariants(lever: (change: Partial<SearchTuning>) => Variant): Record<string, Variant> {
  const none: SearchTuning = {
    contentPoor: 0,
    asking: 0,
    dated: 0,
    speaker: 0,
    everyTier: 0,
  };
  const rows: Record<string, Variant> = { 'levers: none': lever(none) };
  for (const [name, strengths] of Object.entries(STRENGTHS)) {
    for (const strength of strengths) rows[`levers: ${name} ${strength} alone`] = lever({ ...none, [name]: strength });
  }
  const on = Object.entries(DEFAULT_TUNING).filter(([, strength]) => strength > 0);
  const configured = `as configured (${on.map(([k, v]) => `${k} ${v}`).join(', ') || 'none'})`;
  rows[`levers: ${configured}`] = lever({});
  // What each lever left off would add to the configuration, since levers can overlap.
  for (const [name, strengths] of Object.entries(STRENGTHS)) {
    if (DEFAULT_TUNING[name as keyof SearchTuning] > 0) continue;
    for (const strength of strengths) rows[`levers: ${configured} + ${name} ${strength}`] = lever({ [name]: strength });
  }
  return rows;
}

/** Appends the questions the search misses (evidence not all in the top 10) to --misses, one JSON line each. */
async function writeMisses(
  set: EvalSet,
  search: Variant,
  keyOf: (passageId: number) => string | undefined,
): Promise<void> {
  for (const q of set.questions) {
    const found = [...new Set((await search(q.question)).map(keyOf).filter((k): k is string => k !== undefined))].slice(
      0,
      10,
    );
    if (scoreRanking(found, q.evidence).recallAt10 < 1)
      appendFileSync(
        values.misses!,
        `${JSON.stringify({ set: set.name, kind: q.kind, question: q.question, evidence: q.evidence, found })}\n`,
      );
  }
}

/** --exchange fast|strong: each passage with neighbours gains one more unit in that tier, its turn between them. */
async function exchangeVectors(
  set: EvalSet,
  corpus: LearnedCorpus,
  tier: VectorTier,
  embedder: Embedder,
): Promise<void> {
  const textOf = new Map(set.documents.map((d) => [d.key, d.text]));
  const near = neighbours(set);
  const sqlite = corpus.store as SqliteStore;
  const rows = await sqlite.withConnection((raw) =>
    raw
      .query<{ id: number; content: string; units: number | null }, [string]>(
        'SELECT p.id, p.content, (SELECT max(unit) + 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?) AS units FROM passages p',
      )
      .all(tier),
  );
  const units = rows.flatMap((r) => {
    const key = corpus.keyOf(r.id);
    const [before, after] = key ? near.get(key)! : [];
    if (r.units === null || !(before || after)) return [];
    return [
      {
        id: r.id,
        unit: r.units,
        text: [before && textOf.get(before), r.content, after && textOf.get(after)].filter(Boolean).join('\n'),
      },
    ];
  });
  for (let i = 0; i < units.length; i += 64) {
    const batch = units.slice(i, i + 64);
    const vectors = await embedder.embed(batch.map((u) => u.text));
    await sqlite.withConnection((raw) => {
      for (const [j, u] of batch.entries())
        raw.run('INSERT INTO passage_vectors (passage_id, tier, unit, embedding) VALUES (?, ?, ?, ?)', [
          u.id,
          tier,
          u.unit,
          storedVector(vectors[j]!),
        ]);
    });
  }
}

/**
 * Each document's turns before and after it, as a server could tell them: the documents next to it
 * in the order added, sent within six hours of it (REALTALK's times), or on the same day (the
 * generated set's headers give only the day). Turns of other conversations of the container, sent
 * in between, count too: nothing in a document says which conversation it is of.
 */
function neighbours(set: EvalSet): Map<string, [string | undefined, string | undefined]> {
  const at = new Map((set as Partial<RealtalkSet>).turns?.map((t) => [t.key, t.at]));
  const day = new Map(set.documents.map((d) => [d.key, /^\[([^\]]*)\]/.exec(d.text)?.[1]]));
  // A document without a dated header is no chat message: it has no neighbours.
  const close = (a: string, b: string) =>
    at.size
      ? Math.abs(at.get(a)! - at.get(b)!) <= 6 * 3_600_000
      : day.get(a) !== undefined && day.get(a) === day.get(b);
  const keys = set.documents.map((d) => d.key);
  return new Map(
    keys.map((key, i) => {
      const before = keys[i - 1];
      const after = keys[i + 1];
      return [key, [before && close(before, key) ? before : undefined, after && close(after, key) ? after : undefined]];
    }),
  );
}

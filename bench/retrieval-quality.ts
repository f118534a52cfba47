/**
 * Retrieval quality of keyword-only, vector-only and hybrid search, to choose the fusion by
 * measurement. The questions and passages are the generated evaluation sets of the embedding
 * model (each question worded unlike its passage; see test/learning/embedder/quality/), hidden
 * among generated distractor passages, stored and searched with the server's own store, vector
 * index and fusion.
 *
 *   bun bench/retrieval-quality.ts [--distractors 5000]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { loadStaticEmbedder } from '../src/learning/embedder/static-embedder';
import { reciprocalRankFusion } from '../src/search/fusion';
import { FUSION_WEIGHTS, MIN_SIMILARITY } from '../src/search/search-engine';
import { VectorIndex } from '../src/search/vector-index';
import { openDatabase } from '../src/storage/sqlite/open';
import { SqliteStore } from '../src/storage/sqlite/sqlite-store';
import shortSet from '../test/learning/embedder/quality/eval-set.json';
import longSet from '../test/learning/embedder/quality/eval-set-long.json';
import { documentText, seeded } from './lib/corpus';

const { values } = parseArgs({ options: { distractors: { type: 'string', default: '5000' } } });
const embedder = loadStaticEmbedder();
const DEPTH = 30;

type EvalSet = { passages: { id: number | string; text: string }[]; questions: { question: string; passage: number | string }[] };

function measure(name: string, set: EvalSet): void {
  const dir = mkdtempSync(join(tmpdir(), 'engram-quality-'));
  const db = openDatabase(dir, 0);
  db.run('PRAGMA synchronous = OFF'); // a benchmark's scratch store: durability is not measured here
  const store = new SqliteStore(db);
  store.insertAccount({ id: 'a', email: 'q@example.org', passwordHash: '-', createdAt: 0 });
  store.insertContainer({ id: 'c', accountId: 'a', name: 'c', description: '', createdAt: 0, updatedAt: 0 });
  store.setEmbeddingModel({ id: embedder.id, dimensions: embedder.dimensions }, 0);
  const index = new VectorIndex(embedder.dimensions);
  const passageOf = new Map<number, string>();
  const add = (key: string, text: string) => {
    store.insertDocument({ id: `doc_${key}`, accountId: 'a', containerId: 'c', title: null, content: text, url: null, customId: null,
      metadata: null, status: 'queued', error: null, createdAt: 0, updatedAt: 0, learnedAt: null });
    const job = store.claimJobs(0, 1)[0]!;
    const [vector] = embedder.embed([text]);
    const [id] = store.completeDocument(job, [{ position: 0, title: null, content: text }], [vector!], 0);
    index.add(id!, 'c', vector!);
    passageOf.set(id!, key);
  };
  for (const p of set.passages) add(`eval_${p.id}`, p.text);
  const random = seeded(3);
  for (let i = 0; i < Number(values.distractors); i++) add(`noise_${i}`, documentText(random, 300 + Math.floor(random() * 500)));

  const variants: Record<string, (kw: number[], vec: number[]) => number[]> = {
    'keyword only (BM25)': (kw) => kw,
    'vector only': (_, vec) => vec,
    'hybrid RRF 1:1': (kw, vec) => reciprocalRankFusion([kw, vec]).map((f) => f.item),
    'hybrid RRF 1:0.5 (the server\'s)': (kw, vec) => reciprocalRankFusion([kw, vec], FUSION_WEIGHTS).map((f) => f.item),
    'hybrid RRF 1:2': (kw, vec) => reciprocalRankFusion([kw, vec], [1, 2]).map((f) => f.item),
  };
  const hits: Record<string, [number, number]> = Object.fromEntries(Object.keys(variants).map((v) => [v, [0, 0]]));
  for (const q of set.questions) {
    const kw = store.searchPassages('a', 'c', q.question, DEPTH).map((h) => h.passageId);
    const [qv] = embedder.embed([q.question]);
    const vec = index.search(qv!, ['c'], DEPTH).filter((h) => h.score >= MIN_SIMILARITY).map((h) => h.passageId);
    const want = `eval_${q.passage}`;
    for (const [v, rank] of Object.entries(variants)) {
      const ranked = rank(kw, vec).map((id) => passageOf.get(id));
      if (ranked.slice(0, 5).includes(want)) hits[v]![0]++;
      if (ranked.slice(0, 10).includes(want)) hits[v]![1]++;
    }
  }
  store.close();
  rmSync(dir, { recursive: true, force: true });
  console.log(`\n${name}: ${set.questions.length} questions, ${set.passages.length} passages + ${values.distractors} distractors`);
  console.log('| search | recall@5 | recall@10 |\n|---|---|---|');
  for (const [v, [at5, at10]] of Object.entries(hits)) {
    console.log(`| ${v} | ${(at5 / set.questions.length).toFixed(3)} | ${(at10 / set.questions.length).toFixed(3)} |`);
  }
}

measure('short passages', shortSet as EvalSet);
measure('long passages', longSet as EvalSet);

/**
 * Speed and retrieval quality of the built-in static embedder, in TypeScript. Not run by CI.
 *
 *   node_modules/.bin/bun test/embedders/quality/bench.ts [model_dir]
 *
 * Speed: ~1 KiB passages made from the evaluation set's text (every passage distinct), embedded
 * all 2,000 at a time after a warm-up run; also the cold start (tokenizer word cache empty) and
 * short-query latency. Quality: recall@1/@5 and MRR@10 on eval-set.json and eval-set-long.json
 * (see make_eval_set.py),
 * which eval_python.py computes for the source transformer and BM25 on the same set.
 */
import { StaticEmbedder } from '../../../src/embedders/static-embedder';
import evalSet from './eval-set.json';
import evalSetLong from './eval-set-long.json';

const dir = process.argv[2];
let t0 = performance.now();
const embedder = dir ? StaticEmbedder.load(dir) : StaticEmbedder.load();
const loadMs = performance.now() - t0;

// ~1 KiB passages: consecutive eval passages joined until 1,024 characters, shifted by one each time.
const texts = evalSet.passages.map((p) => p.text);
const passages: string[] = [];
for (let start = 0; passages.length < 2000; start++) {
  let s = '';
  for (let i = start; s.length < 1024; i++) s += (s ? ' ' : '') + texts[i % texts.length];
  passages.push(`${passages.length}. ${s.slice(0, 1024)}`);
}
const meanChars = passages.reduce((n, p) => n + p.length, 0) / passages.length;
const meanTokens = passages.slice(0, 200).reduce((n, p) => n + embedder.tokenizer.encodeIds(p).length, 0) / 200;

t0 = performance.now();
embedder.embed(passages.slice(0, 200));
const coldMs = performance.now() - t0;

embedder.embed(passages); // warm-up: JIT and the word cache
const runs: number[] = [];
for (let r = 0; r < 5; r++) {
  t0 = performance.now();
  embedder.embed(passages);
  runs.push(performance.now() - t0);
}
runs.sort((a, b) => a - b);
const median = runs[2]!;

const queries = evalSet.questions.map((q) => q.question);
const lat: number[] = [];
for (let r = 0; r < 3; r++)
  for (const q of queries) {
    const s = performance.now();
    embedder.embedOne(q);
    lat.push(performance.now() - s);
  }
lat.sort((a, b) => a - b);

// Quality.
const dot = (a: Float32Array, b: Float32Array) => {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
};
function quality(set: typeof evalSet): string {
  const P = embedder.embed(set.passages.map((p) => p.text));
  const Q = embedder.embed(set.questions.map((q) => q.question));
  let r1 = 0,
    r5 = 0,
    mrr = 0;
  set.questions.forEach((q, qi) => {
    const scores = P.map((p, pi) => [dot(Q[qi]!, p), pi] as const).sort((a, b) => b[0] - a[0] || a[1] - b[1]);
    const rank = scores.findIndex(([, pi]) => pi === q.passage) + 1;
    if (rank <= 1) r1++;
    if (rank <= 5) r5++;
    if (rank <= 10) mrr += 1 / rank;
  });
  const n = set.questions.length;
  return `${n} questions, ${P.length} passages: recall@1 ${(r1 / n).toFixed(3)}, recall@5 ${(r5 / n).toFixed(3)}, MRR@10 ${(mrr / n).toFixed(3)}`;
}

console.log(`model            ${embedder.id} (${embedder.dimensions} dims)`);
console.log(`load             ${loadMs.toFixed(0)} ms`);
console.log(
  `passages         ${passages.length} × ${meanChars.toFixed(0)} chars (${meanTokens.toFixed(0)} tokens on average)`,
);
console.log(
  `cold 200         ${coldMs.toFixed(1)} ms (${((coldMs * 1000) / 200).toFixed(0)} µs a passage, empty word cache)`,
);
console.log(
  `warm             ${((passages.length * 1000) / median).toFixed(0)} passages/s, ${((median * 1000) / passages.length).toFixed(1)} µs a passage (median of 5 runs)`,
);
console.log(
  `query latency    p50 ${(lat[Math.floor(lat.length / 2)]! * 1000).toFixed(1)} µs, p99 ${(lat[Math.floor(lat.length * 0.99)]! * 1000).toFixed(1)} µs`,
);
console.log(`eval-set         ${quality(evalSet)}`);
console.log(`eval-set-long    ${quality(evalSetLong)}`);

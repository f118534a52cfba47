/**
 * A candidate strong model measured before it is built in: its vectors for every text the strong
 * tier embeds in a benchmark (each passage's units and each question) are made once by another
 * program (bench/candidate-embed.py) and read here, behind the Embedder interface, so that the
 * server's own learning, refinement, fusion and levers run on them unchanged.
 *
 * Two files share a stem: `<stem>.jsonl`, one `{"text", "query"}` a line, which the benchmark
 * writes; and `<stem>.f32`, the vectors in the same order (float32, little-endian, L2-normalised),
 * which the other program writes.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import type { Embedder } from '../../src/embedders/embedder';
import { embeddingUnits } from '../../src/learning/embedding-units';
import { splitPassages } from '../../src/learning/split-passages';
import type { EvalSet } from './retrieval-eval';

/** The texts the strong tier embeds for `set`: each passage's strong units, then each question (as a query). */
function strongTexts(set: EvalSet): { text: string; query: boolean }[] {
  const units = new Set<string>();
  for (const d of set.documents)
    for (const p of splitPassages(d.text, null)) for (const u of embeddingUnits(p, 'strong')) units.add(u);
  const questions = new Set(set.questions.map((q) => q.question));
  return [
    ...[...units].map((text) => ({ text, query: false })),
    ...[...questions].map((text) => ({ text, query: true })),
  ];
}

/**
 * The embedder over `<stem>`'s vectors for `set`; when the vectors are not there yet, writes the
 * texts to embed to `<stem>.jsonl` and returns null.
 */
export function vectorsFile(stem: string, set: EvalSet): Embedder | null {
  const texts = strongTexts(set);
  if (!existsSync(`${stem}.f32`)) {
    writeFileSync(`${stem}.jsonl`, texts.map((t) => JSON.stringify(t)).join('\n') + '\n');
    return null;
  }
  const listed = readFileSync(`${stem}.jsonl`, 'utf8')
    .trimEnd()
    .split('\n')
    .map((l) => JSON.parse(l) as { text: string; query: boolean });
  const bytes = readFileSync(`${stem}.f32`);
  const all = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
  const dimensions = all.length / listed.length;
  if (!Number.isInteger(dimensions))
    throw new Error(`${stem}.f32 does not hold one vector for each line of ${stem}.jsonl`);
  const passages = new Map<string, Float32Array>();
  const queries = new Map<string, Float32Array>();
  for (const [i, t] of listed.entries())
    (t.query ? queries : passages).set(t.text, all.subarray(i * dimensions, (i + 1) * dimensions));
  const missing = texts.filter((t) => !(t.query ? queries : passages).has(t.text)).length;
  if (missing)
    throw new Error(`${stem}.f32 lacks ${missing} of the set's texts: remove it and embed ${stem}.jsonl again`);
  return {
    id: `file:${stem.split('/').at(-1)}`,
    dimensions,
    embed: (batch) =>
      batch.map((text) => {
        // A question is embedded as a query (e5's "query: "), everything else as a passage.
        const v = queries.get(text) ?? passages.get(text);
        if (!v) throw new Error(`no vector in ${stem}.f32 for ${JSON.stringify(text.slice(0, 80))}`);
        return v;
      }),
  };
}

/**
 * Which known facts matter to a document: those the model is shown beside it, so that it can say
 * a new fact repeats or replaces one. Every known fact in every request would cost a small local
 * model seconds of reading a document; the facts a document bears on are few.
 */
import type { Embedder } from '../embedders/embedder';
import type { Fact } from '../storage/store';
import { STOPWORDS } from '../stopwords';

/**
 * The facts of `candidates` nearest to any of `texts`, best first, at most `limit`: with the fast
 * embedder, those whose similarity to a passage reaches the model's floor of relatedness ("Lives in
 * Paris" for "I moved to Berlin"); without one, those sharing a word (by its first four letters,
 * which stands in for a stem: "lives" and "lived").
 */
export async function relevantFacts(
  candidates: Fact[],
  texts: string[],
  embedder: Embedder | null,
  limit: number,
): Promise<Fact[]> {
  if (candidates.length === 0 || texts.length === 0) return [];
  const scores = embedder ? await similarities(embedder, candidates, texts) : overlaps(candidates, texts);
  const floor = embedder ? (embedder.similarityFloor ?? 0) : 1;
  return candidates
    .map((fact, i) => ({ fact, score: scores[i]! }))
    .filter((s) => s.score >= floor && s.score > 0)
    .sort((a, b) => b.score - a.score)
    .slice(0, limit)
    .map((s) => s.fact);
}

/** Each fact's highest cosine similarity to a text (the vectors are unit length). */
async function similarities(embedder: Embedder, facts: Fact[], texts: string[]): Promise<number[]> {
  const vectors = await embedder.embed([...texts, ...facts.map((f) => f.content)]);
  const passages = vectors.slice(0, texts.length);
  return vectors.slice(texts.length).map((v) => Math.max(...passages.map((p) => dot(p, v))));
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

/** How many of each fact's words the texts hold. */
function overlaps(facts: Fact[], texts: string[]): number[] {
  const words = new Set(texts.flatMap(stems));
  return facts.map((f) => stems(f.content).filter((w) => words.has(w)).length);
}

const stems = (text: string): string[] => [
  ...new Set(
    (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])
      .filter((w) => w.length > 2 && !STOPWORDS.has(w))
      .map((w) => w.slice(0, 4)),
  ),
];

/**
 * The every-tier lever of issue 39 on its own (src/search/every-tier.ts): the fused candidates a
 * tier's list lacks, scored by that tier (vector-index.ts's similarity). Whether it helps is the
 * benchmark's question (bench/retrieval-quality.ts), never a test's.
 */
import { describe, expect, it } from 'bun:test';
import { scoredByTier } from '../../src/search/every-tier';
import { quantize } from '../../src/storage/stored-vector';
import { scratchIndex } from '../helpers/scratch';

describe("the candidates a tier's list lacks", () => {
  const cosines: Record<number, number> = { 1: 0.9, 2: 0.5, 3: 0.2, 4: 0.7 };
  const similarity = (id: number) => cosines[id] ?? null;
  const list = [{ item: 1, score: 0.9 }];

  it("join the list with the tier's cosine, best first; those under the floor or not held stay out; the list's own scores are kept", () => {
    expect(scoredByTier(list, [2, 1, 3, 5, 4], similarity, 0.3)).toEqual([
      { item: 1, score: 0.9 },
      { item: 4, score: 0.7 },
      { item: 2, score: 0.5 },
    ]);
    expect(scoredByTier([{ item: 1, score: 0.95 }], [1], similarity, 0.3)).toEqual([{ item: 1, score: 0.95 }]);
    expect(scoredByTier([], [], similarity, 0.3)).toEqual([]);
  });
});

describe("a passage's similarity from the index", () => {
  it("is its best unit's cosine, as search scores it; null once removed or never held", () => {
    const index = scratchIndex(4);
    const a = Float32Array.from([0.5, -0.5, 0.5, 0.5]);
    const b = Float32Array.from([1, 0, 0, 0]);
    index.add(7, 'c', [quantize(a), quantize(b)]);
    const query = Float32Array.from([0.8, 0.6, 0, 0]);
    expect(index.similarity(7, query)!).toBeCloseTo(0.8, 2);
    expect(index.similarity(7, query)).toBeCloseTo(index.search(query, ['c'], 1)[0]!.score, 9);
    expect(index.similarity(8, query)).toBeNull();
    index.remove(7);
    expect(index.similarity(7, query)).toBeNull();
    index.close();
  });
});

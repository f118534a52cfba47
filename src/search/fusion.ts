/**
 * Reciprocal rank fusion: each list votes weight / (k + rank) for its items, so an item ranked well
 * by both keyword and vector search rises, and neither list's raw scores need to be comparable.
 * The weights were chosen by bench/retrieval-quality.ts (see docs/performance.md).
 */
export const RRF_K = 60;

export function reciprocalRankFusion<T>(lists: T[][], weights: number[] = lists.map(() => 1), k = RRF_K): { item: T; score: number }[] {
  const scores = new Map<T, number>();
  lists.forEach((list, l) => {
    list.forEach((item, rank) => scores.set(item, (scores.get(item) ?? 0) + weights[l]! / (k + rank + 1)));
  });
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

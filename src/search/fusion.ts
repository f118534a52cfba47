/**
 * Reciprocal rank fusion: each list votes 1 / (k + rank) for its items, so an item ranked well by
 * both keyword and vector search rises, and neither list's raw scores need to be comparable.
 */
export const RRF_K = 60;

export function reciprocalRankFusion<T>(lists: T[][], k = RRF_K): { item: T; score: number }[] {
  const scores = new Map<T, number>();
  for (const list of lists) {
    list.forEach((item, rank) => scores.set(item, (scores.get(item) ?? 0) + 1 / (k + rank + 1)));
  }
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

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

export interface Scored<T> {
  item: T;
  score: number;
}

/**
 * Convex fusion: each list's scores are divided by its best score, and an item's fused score is
 * `weight × keyword + (1 − weight) × vector` over the union of both lists, a list that lacks the
 * item giving it 0. Unlike ranks, normalised scores keep how far ahead a list's best hits are, which
 * measured better than RRF on the conversational benchmark (docs/performance.md).
 */
export function convexFusion<T>(keyword: Scored<T>[], vector: Scored<T>[], keywordWeight: number): Scored<T>[] {
  const scores = new Map<T, number>();
  const add = (list: Scored<T>[], weight: number) => {
    const top = Math.max(...list.map((h) => h.score));
    if (!(top > 0)) return;
    for (const h of list) scores.set(h.item, (scores.get(h.item) ?? 0) + (weight * Math.max(h.score, 0)) / top);
  };
  add(keyword, keywordWeight);
  add(vector, 1 - keywordWeight);
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

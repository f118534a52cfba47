/**
 * Fusing ranked lists into one: keyword search and each vector tier. The server fuses by a convex
 * combination of min-max normalised scores; reciprocal rank fusion (what it did before) stays for
 * the benchmark's comparison. The weights and the table that chose them are in docs/performance.md.
 */

export interface Scored<T> {
  item: T;
  score: number;
}

/**
 * Convex fusion: each list's scores are rescaled to 0–1 between its worst and best candidate, and an
 * item's fused score is the weighted sum over the lists, a list that lacks the item giving it 0.
 * Unlike ranks, rescaled scores keep how far ahead a list's best hits are; on the conversational
 * benchmark this beat RRF and division by the top score alike (docs/performance.md). A weight may
 * depend on the item: then each item's weights should still sum to the same total, so that every
 * item is scored on one scale (see `fairWeights`).
 */
export function convexFusion<T>(lists: { hits: Scored<T>[]; weight: number | ((item: T) => number) }[]): Scored<T>[] {
  const scores = new Map<T, number>();
  for (const { hits, weight } of lists) {
    if (hits.length === 0) continue;
    let top = -Infinity;
    let bottom = Infinity;
    for (const h of hits) {
      top = Math.max(top, h.score);
      bottom = Math.min(bottom, h.score);
    }
    for (const h of hits) {
      const rescaled = top > bottom ? (h.score - bottom) / (top - bottom) : 1;
      const w = typeof weight === 'number' ? weight : weight(h.item);
      scores.set(h.item, (scores.get(h.item) ?? 0) + w * rescaled);
    }
  }
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

export interface FusionWeights {
  keyword: number;
  fast: number;
  strong: number;
}

/**
 * Each list's weight for an item while the strong tier has reached only some items: an item it has
 * embedded (`refined`) is weighed as with both tiers, one it has not as with the fast tier alone,
 * each set summing to one. An item not refined yet is then ranked on what it has, keywords and the
 * fast tier, on the same scale as a refined one, instead of losing the strong tier's share to every
 * refined item (a keyword-only hit scored at most 0.3 against a refined one's 0.5 from the strong
 * tier alone); a store refined to the end or not at all is fused as before.
 */
export function fairWeights<T>(
  refined: (item: T) => boolean,
  withStrong: FusionWeights,
  fastOnly: FusionWeights,
): Record<keyof FusionWeights, (item: T) => number> {
  const of = (tier: keyof FusionWeights) => (item: T) => (refined(item) ? withStrong : fastOnly)[tier];
  return { keyword: of('keyword'), fast: of('fast'), strong: of('strong') };
}

/** Reciprocal rank fusion: each list votes weight / (k + rank) for its items. */
export function reciprocalRankFusion<T>(lists: T[][], weights: number[] = lists.map(() => 1), k = 60): Scored<T>[] {
  const scores = new Map<T, number>();
  lists.forEach((list, l) => {
    list.forEach((item, rank) => {
      scores.set(item, (scores.get(item) ?? 0) + weights[l]! / (k + rank + 1));
    });
  });
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

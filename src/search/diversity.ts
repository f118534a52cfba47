/**
 * Answer diversity in a page of hits: a passage that nearly repeats one ranked above it, or is
 * another passage of the same document, adds little that the reader has not seen; it steps down
 * so that a different answer can take its place (maximal marginal relevance, counting only
 * near-duplicates). Near-duplicates are told by their words, which the page has read anyway.
 */
import type { Scored } from './fusion';

/** The share of their words two passages have in common (Jaccard) above which they count as near-duplicates. */
const DUPLICATE_OVERLAP = 0.5;

/** A passage's words, lower-cased, in order (the levers that read a page's passages share them). */
export const wordsIn = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** The share of the two sets' words that both hold (0 when both are empty). */
export function wordOverlap(a: Set<string>, b: Set<string>): number {
  let both = 0;
  for (const w of a) if (b.has(w)) both++;
  const either = a.size + b.size - both;
  return either ? both / either : 0;
}

/**
 * Picks `limit` hits from `ranked` (best first) greedily: each step takes the candidate whose score,
 * less `penalty` × its overlap with the hits already taken, is highest. Overlap is 1 for a passage of
 * a document already taken, else how far the share of words it has in common with a taken hit
 * exceeds `threshold` (scaled to 0–1). The scores returned are the adjusted ones, so the page stays
 * in descending order.
 */
export function diversify(
  ranked: Scored<number>[],
  limit: number,
  documentOf: (id: number) => string | null,
  overlapOf: (a: number, b: number) => number,
  penalty: number,
  threshold = DUPLICATE_OVERLAP,
): Scored<number>[] {
  const left = [...ranked];
  const taken: Scored<number>[] = [];
  const overlap = (id: number) => {
    let most = 0;
    const document = documentOf(id);
    for (const t of taken) {
      if (document !== null && documentOf(t.item) === document) return 1;
      most = Math.max(most, (overlapOf(id, t.item) - threshold) / (1 - threshold));
    }
    return most;
  };
  while (taken.length < limit && left.length) {
    let best = 0;
    let bestScore = -Infinity;
    for (let i = 0; i < left.length; i++) {
      // Scores only fall, so once a candidate's own score cannot beat the best adjusted one, none after it can.
      if (left[i]!.score <= bestScore) break;
      const adjusted = left[i]!.score - penalty * overlap(left[i]!.item);
      if (adjusted > bestScore) [best, bestScore] = [i, adjusted];
    }
    taken.push({ item: left[best]!.item, score: bestScore });
    left.splice(best, 1);
  }
  return taken;
}

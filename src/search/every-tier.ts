/**
 * Every candidate scored by every tier: fusion takes each list's first 50, and a passage one list
 * finds (keyword search, or one vector tier) is often below another's 50th, and fuses as if that
 * tier had scored it 0. Scored by every tier that holds it (above the tier's similarity floor, as
 * its list), each candidate fuses on all it has (REALTALK-odd recall@10 0.510 → 0.531,
 * docs/performance.md, issue 39).
 */
import type { Scored } from './fusion';

/** The fused candidates scored so, at most: twice a page's pool (the cost is a row read a unit). */
export const EVERY_TIER_CANDIDATES = 60;

/**
 * A tier's list with each of the candidates `ids` it lacks added, scored by `similarity` (its
 * cosine with the tier's query, null when the tier does not hold it) when above `floor`; best first.
 */
export function scoredByTier(
  list: Scored<number>[],
  ids: number[],
  similarity: (id: number) => number | null,
  floor: number,
): Scored<number>[] {
  const listed = new Set(list.map((h) => h.item));
  const added: Scored<number>[] = [];
  for (const item of ids) {
    if (listed.has(item)) continue;
    const score = similarity(item);
    if (score !== null && score > floor) added.push({ item, score });
  }
  return [...list, ...added].sort((a, b) => b.score - a.score);
}

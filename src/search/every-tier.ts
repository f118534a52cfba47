/**
 * Every candidate scored by every tier: fusion takes each list's first 50, and a passage one list
 * finds (keyword search, or one vector tier) is often missing from another's, below its 50th or
 * under its model's similarity floor, and fuses as if that tier had scored it 0. Scored by every
 * tier that holds it, each candidate fuses on all it has: on REALTALK-odd a third of the missed
 * evidence turns were fused while missing from a list (docs/performance.md, issue 39).
 */
import type { Scored } from './fusion';

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

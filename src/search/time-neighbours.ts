/**
 * Neighbours in time: documents added close together in one container are often one conversation,
 * so the turn that answers a question may sit beside the turn that matched it ("Guess what we named
 * the puppy?" / "Max!"). The best hits' neighbours compete as candidates, each scored by its own
 * match with the question plus a share of its neighbour's score; none is appended unscored.
 */
import type { Scored } from './fusion';

/** How many of the best hits bring their neighbours. */
export const NEIGHBOUR_ANCHORS = 5;

/**
 * `fused` (best first) with the anchors' neighbours scored in: a neighbour's score is its own (its
 * fused score, or `ownScore` for one the lists did not bring) plus `share` × its best anchor's
 * score, when that beats what it had. Returned best first.
 */
export function withNeighbours(
  fused: Scored<number>[], neighbours: { passageId: number; anchorId: number }[], ownScore: (id: number) => number, share: number,
): Scored<number>[] {
  const scores = new Map(fused.map((f) => [f.item, f.score]));
  const own = new Map(scores);
  for (const { passageId, anchorId } of neighbours) {
    const anchor = own.get(anchorId);
    if (anchor === undefined || passageId === anchorId) continue;
    const score = (own.get(passageId) ?? ownScore(passageId)) + share * anchor;
    if (score > (scores.get(passageId) ?? -Infinity)) scores.set(passageId, score);
  }
  return [...scores].map(([item, score]) => ({ item, score })).sort((a, b) => b.score - a.score);
}

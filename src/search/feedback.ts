/**
 * Pseudo-relevance feedback on the vector side (Rocchio): a question that its best hits answer in
 * part ("What are Kate's hobbies?": her cooking class found, her skiing not) is searched again in
 * each tier with its vector moved toward theirs, so that passages like the ones found, worded
 * unlike the question, come up.
 */
import type { Scored } from './fusion';

/** The best hits whose vectors the query moves toward. */
const FEEDBACK_HITS = 3;

/**
 * `query` (a unit vector) moved toward the mean of `shown` (unit vectors) by `strength`,
 * normalised again: q + strength × mean(shown). `query` itself when nothing is shown.
 */
export function movedQuery(query: Float32Array, shown: Float32Array[], strength: number): Float32Array {
  if (shown.length === 0) return query;
  const moved = Float32Array.from(query);
  for (const v of shown) for (let i = 0; i < moved.length; i++) moved[i]! += (strength * v[i]!) / shown.length;
  let norm = 0;
  for (const x of moved) norm += x * x;
  const inverse = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return moved.map((x) => x * inverse);
}

/** The ids of the first FEEDBACK_HITS of a ranking. */
export const feedbackHits = (ranked: Scored<number>[]): number[] => ranked.slice(0, FEEDBACK_HITS).map((h) => h.item);

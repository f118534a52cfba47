/**
 * Pseudo-relevance feedback on the vector side (Rocchio): the query moved toward the best hits'
 * vectors and searched again, so that passages near what was found, not only near the question's
 * wording, come up.
 */
import { normalizeInPlace } from '../learning/embedder/embedder';

/** The unit vector of query + weight × the mean of the hits (the query itself weighs 1); the query itself when there are none. */
export function feedbackQuery(query: Float32Array, hits: Float32Array[], weight: number): Float32Array {
  const moved = Float32Array.from(query);
  if (!hits.length) return moved;
  for (const hit of hits) for (let i = 0; i < moved.length; i++) moved[i]! += (weight * hit[i]!) / hits.length;
  return normalizeInPlace(moved);
}

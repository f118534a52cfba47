/**
 * Pseudo-relevance feedback on the keyword side: the words the best hits share, beyond the
 * question's own, make a second keyword query (RM3's idea without its probabilities). A question
 * worded unlike its answer ("Where did Caroline's brother move?") can reach a passage that says the
 * answer in the words of passages it did find ("Dublin", "moved", "flat").
 */
import { STOPWORDS } from '../storage/sqlite/fts-query';

/** Expansion terms taken from the best hits. */
const FEEDBACK_TERMS = 8;

const words = (text: string) => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * The `count` words that weigh most in the feedback passages (each word's share of a passage's
 * words, times the passage's weight, summed), leaving out function words, the query's words, numbers
 * and words of fewer than three letters. Best first; ties keep the order they were first seen in.
 */
export function feedbackTerms(query: string, passages: { text: string; weight: number }[], count = FEEDBACK_TERMS): string[] {
  const asked = new Set(words(query));
  const weights = new Map<string, number>();
  for (const { text, weight } of passages) {
    const all = words(text);
    for (const w of all) {
      if (w.length < 3 || STOPWORDS.has(w) || asked.has(w) || /^\p{N}+$/u.test(w)) continue;
      weights.set(w, (weights.get(w) ?? 0) + weight / all.length);
    }
  }
  return [...weights].sort((a, b) => b[1] - a[1]).slice(0, count).map(([w]) => w);
}

/**
 * Pseudo-relevance feedback on the keyword side (RM3's kind): the best passages a search finds
 * carry words the question lacks ("athletic build" asked, "bench press" and "5k" told). The words
 * those passages share most, weighted by how well each passage ranked, are searched for once more,
 * and that second keyword list joins the fusion, so that a turn saying the rest of an answer in
 * other words than the question's can be found.
 */
import { STOPWORDS } from '../stopwords';
import { ownWords } from './content-poor';
import type { Scored } from './fusion';

/** Passages the expansion words are drawn from: the best of the first fusion. */
export const FEEDBACK_PASSAGES = 3;
/** Expansion words searched for at most. */
const FEEDBACK_TERMS = 10;

/**
 * The words to search for again: from `ranked` passages' own words (a chat message's header left
 * out), each passage weighing by its score and each word by its share of the passage, words of the
 * question and function words left out; null when none is left.
 */
export function expansionQuery(
  question: string,
  ranked: Scored<number>[],
  textOf: (id: number) => string | undefined,
): string | null {
  const asked = new Set(ownWords(question));
  const weight = new Map<string, number>();
  for (const { item, score } of ranked.slice(0, FEEDBACK_PASSAGES)) {
    const text = textOf(item);
    if (!text) continue;
    const words = ownWords(text).filter((w) => w.length > 2 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w));
    for (const w of words) if (!asked.has(w)) weight.set(w, (weight.get(w) ?? 0) + score / words.length);
  }
  const terms = [...weight]
    .sort((a, b) => b[1] - a[1])
    .slice(0, FEEDBACK_TERMS)
    .map(([w]) => w);
  return terms.length ? terms.join(' ') : null;
}

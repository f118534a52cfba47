/**
 * Content-poor passages step down: a greeting or an acknowledgement ("Love that.", "Tell me about
 * it.") holds no fact to find, yet matches a question on the person's name alone and, being short,
 * scores high on both keyword and vector search. A passage with fewer than CONTENT_WORDS words that
 * carry meaning loses part of its score, in proportion to how few it has.
 */
import { STOPWORDS } from '../stopwords';
import type { Scored } from './fusion';

/** Content words at which a passage is no longer content-poor. */
const CONTENT_WORDS = 6;

/** How many of a passage's words (`wordsIn`) carry meaning: two letters or more, neither function words nor numbers. */
export function contentWords(words: string[]): number {
  return words.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w)).length;
}

/**
 * `ranked` with each content-poor passage's score lowered by up to `strength`, best first again; a
 * passage without words read is left as it was.
 */
export function stepDownContentPoor(
  ranked: Scored<number>[],
  wordsOf: (id: number) => string[] | undefined,
  strength: number,
): Scored<number>[] {
  return ranked
    .map(({ item, score }) => {
      const words = wordsOf(item);
      const missing = words === undefined ? 0 : Math.max(0, CONTENT_WORDS - contentWords(words)) / CONTENT_WORDS;
      return { item, score: score - strength * missing };
    })
    .sort((a, b) => b.score - a.score);
}

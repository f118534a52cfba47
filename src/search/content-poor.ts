/**
 * Content-poor passages step down: a greeting or an acknowledgement ("Love that.", "Hey Kate!")
 * holds no fact to find, yet matches a question on the person's name alone and, being short,
 * scores high on both keyword and vector search. A passage with fewer than CONTENT_WORDS words of
 * its own that carry meaning loses part of its score, in proportion to how few it has. A chat
 * message's header (its time and speaker) is not its own words: every message has one.
 */
import { STOPWORDS } from '../stopwords';
import type { Scored } from './fusion';

/** Content words at which a passage is no longer content-poor. */
const CONTENT_WORDS = 6;

/**
 * A chat message's header: a bracketed time, a speaker's name before a colon, or both
 * (`[29 December 2023, 22:42] elise: `). Unlike learning's leading context, a name written in lower
 * case counts: people type their display names so.
 */
export const MESSAGE_HEADER = /^(?:\[[^\]\n]{1,40}\]\s*)?(?:[\p{L}\p{N}][\p{L}\p{N}.' -]{0,38}:\s+)?/u;

/** A text's words, lower-cased, in order. */
export const wordsIn = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A passage's own words: its words after a chat message's header. */
export const ownWords = (text: string): string[] => wordsIn(text.replace(MESSAGE_HEADER, ''));

/** How many of `words` carry meaning: two letters or more, neither function words nor numbers. */
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

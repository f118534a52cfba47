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
 * A chat message's header: a bracketed time (a clock time or a year in it), then the speaker's
 * name before a colon when there is one (`[29 December 2023, 22:42] elise: `), as a chat export
 * and an app adding messages one by one write them. A name before a colon alone is no header: a
 * note's first line reads so too ("Note: buy milk", "Re: the lease"). Unlike learning's leading
 * context, a name written in lower case counts: people type their display names so. Its `speaker`
 * group is the name (speaker.ts).
 */
export const MESSAGE_HEADER =
  /^\[(?=[^\]\n]*(?:\d:\d\d|\d{4}))[^\]\n]{1,40}\]\s*(?:(?<speaker>[\p{L}\p{N}][\p{L}\p{N}.' -]{0,38}):\s+)?/u;

/** A text's words, lower-cased, in order. */
export const wordsIn = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];

/** A passage's own words: its words after a chat message's header. */
export const ownWords = (text: string): string[] => wordsIn(text.replace(MESSAGE_HEADER, ''));

/** Whether a word carries meaning: two letters or more, neither a function word nor a number. */
const meaningful = (w: string) => w.length > 1 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w);

/** How many of `words` carry meaning. */
export function contentWords(words: string[]): number {
  return words.filter(meaningful).length;
}

/**
 * How many of a passage's own words (`ownWords`) carry meaning, counted up to CONTENT_WORDS: all a
 * step needs, and most passages reach it in their first line, so a search's candidates are not
 * split into words whole (0.5–0.9 ms less a search at 100,000 passages, load 11–13).
 */
export function ownContentWords(text: string): number {
  const words = /[\p{L}\p{N}]+/gu;
  const own = text.replace(MESSAGE_HEADER, '').toLowerCase();
  let found = 0;
  for (let word = words.exec(own); word && found < CONTENT_WORDS; word = words.exec(own))
    if (meaningful(word[0])) found++;
  return found;
}

/**
 * `ranked` with each content-poor passage's score lowered by up to `strength`, best first again
 * (`contentWordsOf`: a passage's content words, as `ownContentWords` counts them); a passage
 * without its text read is left as it was.
 */
export function stepDownContentPoor(
  ranked: Scored<number>[],
  contentWordsOf: (id: number) => number | undefined,
  strength: number,
): Scored<number>[] {
  return ranked
    .map(({ item, score }) => {
      const found = contentWordsOf(item);
      const missing = found === undefined ? 0 : Math.max(0, CONTENT_WORDS - found) / CONTENT_WORDS;
      return { item, score: score - strength * missing };
    })
    .sort((a, b) => b.score - a.score);
}

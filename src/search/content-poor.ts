/**
 * Content-poor passages step down: a greeting or an acknowledgement ("Love that.", "Tell me about
 * it.") holds no fact to find, yet matches a question on the person's name alone and, being short,
 * scores high on both keyword and vector search. A passage with fewer than CONTENT_WORDS words that
 * carry meaning loses part of its score, in proportion to how few it has.
 */
import { STOPWORDS } from '../storage/sqlite/fts-query';
import type { Scored } from './fusion';

/** Content words at which a passage is no longer content-poor. */
const CONTENT_WORDS = 6;

/** Words of two letters or more that are neither function words nor numbers. */
export function contentWords(text: string): number {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => w.length > 1 && !STOPWORDS.has(w) && !/^\p{N}+$/u.test(w)).length;
}

/** `ranked` with each content-poor passage's score lowered by up to `strength`, best first again. */
export function stepDownContentPoor(ranked: Scored<number>[], textOf: (id: number) => string | undefined, strength: number): Scored<number>[] {
  return ranked.map(({ item, score }) => {
    const text = textOf(item);
    const missing = text === undefined ? 0 : Math.max(0, CONTENT_WORDS - contentWords(text)) / CONTENT_WORDS;
    return { item, score: score - strength * missing };
  }).sort((a, b) => b.score - a.score);
}

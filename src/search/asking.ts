/**
 * Passages that ask step down: in talk, a turn that only asks ("Where do you work, Kate?") shares
 * the question's words, and the person's name, with a search for its answer, and ranks above the
 * reply that holds it. A passage loses part of its score in proportion to the share of its sentences
 * that are questions.
 */
import type { Scored } from './fusion';

/** The share of a text's sentences that end with a question mark (0 for a text without sentences). */
export function askingShare(text: string): number {
  const sentences = text
    .split(/(?<=[.!?…])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => /[\p{L}\p{N}]/u.test(s));
  if (sentences.length === 0) return 0;
  return sentences.filter((s) => /[?？]["'”’)\]]*$/u.test(s)).length / sentences.length;
}

/** `ranked` with each passage's score lowered by `strength` × its asking share, best first again; a passage not read is left as it was. */
export function stepDownAsking(
  ranked: Scored<number>[],
  textOf: (id: number) => string | undefined,
  strength: number,
): Scored<number>[] {
  return ranked
    .map(({ item, score }) => {
      const text = textOf(item);
      return { item, score: text === undefined ? score : score - strength * askingShare(text) };
    })
    .sort((a, b) => b.score - a.score);
}

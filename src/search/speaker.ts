/**
 * Questions about a person: "What country does Elise live in?" is answered by what Elise said ("I'm
 * from Houston, Texas"), a turn that need not name her, while the other speaker's turns name her
 * ("Hey Elise!"). A chat message says who spoke it in its header (content-poor.ts's
 * MESSAGE_HEADER, the rule learning's exchange uses too); a passage spoken by the one person the
 * question names steps up. A question naming two of the speakers found (what both did) lifts
 * neither: it says nothing about whose turns answer it.
 */
import { MESSAGE_HEADER, wordsIn } from './content-poor';
import type { Scored } from './fusion';

/** The speaker a chat message's header names, as words (lower-cased); null for a passage without one. */
export function speakerOf(text: string): string[] | null {
  const name = MESSAGE_HEADER.exec(text)?.groups?.speaker;
  return name ? wordsIn(name) : null;
}

/**
 * Whether `question` (its words, as `wordsIn` gives them) names `speaker` (likewise): the whole name,
 * or its first word alone (a display name "Fahim Khan" is asked about as "Fahim").
 */
export function namesSpeaker(question: string[], speaker: string[]): boolean {
  if (speaker.length === 0) return false;
  if (question.includes(speaker[0]!)) return true;
  return question.some((_, i) => speaker.every((w, j) => question[i + j] === w));
}

/**
 * `ranked` with each passage spoken by the one speaker `question` names raised by `strength`, best
 * first again; unchanged when the question names none of the passages' speakers, or more than one.
 * A passage not read is left as it was.
 */
export function stepUpSpoken(
  ranked: Scored<number>[],
  question: string,
  textOf: (id: number) => string | undefined,
  strength: number,
): Scored<number>[] {
  const words = wordsIn(question);
  const spoken = new Map<number, string>();
  for (const { item } of ranked) {
    const text = textOf(item);
    const speaker = text === undefined ? null : speakerOf(text);
    if (speaker && namesSpeaker(words, speaker)) spoken.set(item, speaker.join(' '));
  }
  const named = new Set(spoken.values());
  if (named.size !== 1) return ranked;
  return ranked
    .map(({ item, score }) => ({ item, score: spoken.has(item) ? score + strength : score }))
    .sort((a, b) => b.score - a.score);
}

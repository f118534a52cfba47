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

/**
 * The first name of the speaker a chat message's header names, lower-cased (a display name "Fahim
 * Khan" is asked about as "Fahim"); null for a passage without one.
 */
export function speakerOf(text: string): string | null {
  const name = MESSAGE_HEADER.exec(text)?.groups?.speaker;
  return (name && wordsIn(name)[0]) ?? null;
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
  // Named: the speaker's first name is one of the question's words (any case, whole words).
  const words = new Set(wordsIn(question));
  const spoken = new Map<number, string>();
  for (const { item } of ranked) {
    const text = textOf(item);
    const speaker = text === undefined ? null : speakerOf(text);
    if (speaker && words.has(speaker)) spoken.set(item, speaker);
  }
  const named = new Set(spoken.values());
  if (named.size !== 1) return ranked;
  return ranked
    .map(({ item, score }) => ({ item, score: spoken.has(item) ? score + strength : score }))
    .sort((a, b) => b.score - a.score);
}

/**
 * One conversation in focus: a container holding several chats ("Where does Kate work?") answers
 * from the chat whose turns rank best, while turns of other chats that share a word or a topic
 * fill the page around them. The speakers of the best few passages are taken as the conversation
 * asked about; a chat message spoken by anyone else steps down.
 */
import type { Scored } from './fusion';
import { speakerOf } from './speaker';

/** The best passages whose speakers are the conversation in focus. */
const FOCUS_HITS = 3;

/**
 * `ranked` with each chat message whose speaker is none of the first FOCUS_HITS passages' speakers
 * lowered by `strength`, best first again; unchanged when those passages name no speaker. A passage
 * not read, or without a speaker, is left as it was.
 */
export function stepDownOffFocus(
  ranked: Scored<number>[],
  textOf: (id: number) => string | undefined,
  strength: number,
): Scored<number>[] {
  const speaker = (id: number) => {
    const text = textOf(id);
    return text === undefined ? null : speakerOf(text);
  };
  const focus = new Set(ranked.slice(0, FOCUS_HITS).map((h) => speaker(h.item)));
  focus.delete(null);
  if (focus.size === 0) return ranked;
  return ranked
    .map(({ item, score }) => {
      const s = speaker(item);
      return { item, score: s !== null && !focus.has(s) ? score - strength : score };
    })
    .sort((a, b) => b.score - a.score);
}

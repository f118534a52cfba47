/**
 * The texts a passage is embedded as: the whole passage, and each of its sentences (short ones
 * grouped) with the passage's leading context, such as a chat turn's `[date] speaker:` prefix or
 * the document's title. Search scores a passage by its best unit ("max-sim"), so one sentence that
 * answers a question is not drowned by the rest of its passage.
 */
import type { VectorTier } from '../storage/store';
import type { Embedder } from '../embedders/embedder';
import { sentences } from './split-passages';

/** Sentences shorter than this are joined with the next: a unit of a few words says too little. */
const MIN_UNIT_CHARS = 120;
/** Units a passage is embedded as at most, whole passage included (bounds the index's size). */
const MAX_UNITS = 8;

/**
 * A short header at the start of a passage that applies to each of its sentences: a bracketed
 * date or tag, a speaker's name before a colon, or both (`[8 May 2023] Caroline:`).
 */
const LEADING_CONTEXT = /^(?:\[[^\]\n]{1,40}\]\s*)?(?:[\p{Lu}\p{N}][\p{L}\p{N}.' -]{0,38}:\s+)?/u;

export interface UnitSource {
  title: string | null;
  content: string;
}

/** The passage as one text, the way every unit of it reads: title first. */
const wholeText = (p: UnitSource): string => (p.title ? `${p.title}\n${p.content}` : p.content);

/**
 * The fast tier: unit 0 is the whole passage, units 1… its sentence groups, in order, each prefixed
 * with the leading context. The strong tier: the sentence groups alone, since its cost is per token
 * and the groups already hold the passage's text (the whole would double the work for about the same
 * recall; docs/performance.md). A passage of one group is embedded whole by either.
 */
export function embeddingUnits(p: UnitSource, tier: VectorTier): string[] {
  const whole = wholeText(p);
  const context = p.content.match(LEADING_CONTEXT)![0];
  const body = p.content.slice(context.length);
  const groups: string[] = [];
  let current = '';
  for (const s of sentences(body)) {
    current = current ? `${current} ${s}` : s;
    if (current.length >= MIN_UNIT_CHARS) {
      groups.push(current);
      current = '';
    }
  }
  if (current) {
    // A short tail joins the group before it rather than standing alone.
    if (groups.length && current.length < MIN_UNIT_CHARS / 2) groups[groups.length - 1] += ` ${current}`;
    else groups.push(current);
  }
  if (groups.length <= 1) return [whole];
  const prefix = `${p.title ? `${p.title}\n` : ''}${context}`;
  // More groups than units allowed (rare at ~800 characters a passage): the whole covers the rest.
  if (tier === 'strong' && groups.length <= MAX_UNITS) return groups.map((g) => prefix + g);
  return [whole, ...groups.slice(0, MAX_UNITS - 1).map((g) => prefix + g)];
}

/** Embeds passages by their units for a tier in one call to the embedder; one array of unit vectors a passage. */
export async function embedPassages(
  embedder: Embedder,
  passages: UnitSource[],
  tier: VectorTier,
): Promise<Float32Array[][]> {
  const units = passages.map((p) => embeddingUnits(p, tier));
  const flat = await embedder.embed(units.flat());
  let next = 0;
  return units.map((u) => {
    const start = next;
    next += u.length;
    return flat.slice(start, next);
  });
}

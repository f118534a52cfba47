/**
 * Turns a natural-language query into an FTS5 expression that is only ever text: every word is
 * quoted, so characters such as `"`, `*`, `:`, `-` or `NEAR` are searched for, never parsed.
 * Common English function words are left out (unless the query has nothing else): they match
 * most passages, which makes ranking slow and adds nothing to it. Stemming is the index's: its
 * Porter tokenizer (migration 0008) stems each quoted word as it stemmed the passages' text.
 */
import { STOPWORDS } from '../../stopwords';

const MAX_TERMS = 32;

export function ftsQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  const terms = (content.length ? content : words).slice(0, MAX_TERMS);
  // OR, so that a question finds passages holding some of its words; BM25 ranks the best first.
  return terms.length ? terms.map((w) => `"${w}"`).join(' OR ') : null;
}

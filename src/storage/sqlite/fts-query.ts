/**
 * Turns a natural-language query into an FTS5 expression that is only ever text: every word
 * (keyword-terms.ts) is quoted, so characters such as `"`, `*`, `:`, `-` or `NEAR` are searched
 * for, never parsed. Stemming is the index's: its Porter tokenizer (migration 0008) stems each
 * quoted word as it stemmed the passages' text.
 */
import { keywordTerms } from '../keyword-terms';

export function ftsQuery(text: string): string | null {
  const terms = keywordTerms(text);
  // OR, so that a question finds passages holding some of its words; BM25 ranks the best first.
  return terms.length ? terms.map((w) => `"${w}"`).join(' OR ') : null;
}

/**
 * A natural-language query as a tsquery that is only ever text: its words (../keyword-terms.ts)
 * OR'd, each a letter-and-digit word, so that no character of it is read as tsquery syntax. The
 * English configuration stems each word as it stemmed the passages' text.
 */
import { keywordTerms } from '../keyword-terms';

/** The text for `to_tsquery('english', ...)`, or null for a query of no word. */
export function keywordQuery(text: string): string | null {
  const terms = keywordTerms(text);
  // OR, so that a question finds passages holding some of its words; the rank puts the best first.
  return terms.length ? terms.join(' | ') : null;
}

/**
 * The words a keyword search looks for, the same on every engine: each engine turns them into its
 * own query (FTS5's quoted words, PostgreSQL's tsquery), so a query is only ever text. Common
 * English function words are left out (unless the query has nothing else): they match most
 * passages, which makes ranking slow and adds nothing to it. Stemming is each engine's index's.
 */
import { STOPWORDS } from '../stopwords';

const MAX_TERMS = 32;

/** The query's distinct words (letters and digits only), lower-cased, function words left out; none for a query of no word. */
export function keywordTerms(text: string): string[] {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return (content.length ? content : words).slice(0, MAX_TERMS);
}

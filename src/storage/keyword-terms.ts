/**
 * The words a keyword search looks for, the same on every engine: each engine turns them into its
 * own query (FTS5's quoted words, PostgreSQL's tsquery), so a query is only ever text. Common
 * English function words are left out (unless the query has nothing else): they match most
 * passages, which makes ranking slow and adds nothing to it. Stemming is each engine's index's.
 */
const MAX_TERMS = 32;

export const STOPWORDS = new Set((
  'a about above after again all am an and any are as at be because been before being below between both but by can ' +
  'could did do does doing down during each few for from further had has have having he her here hers herself him ' +
  'himself his how i if in into is it its itself just me more most my myself no nor not now of off on once only or ' +
  'other our ours ourselves out over own same she should so some such than that the their theirs them themselves then ' +
  'there these they this those through to too under until up very was we were what when where which while who whom ' +
  'why will with would you your yours yourself yourselves'
).split(' '));

/** The query's distinct words (letters and digits only), lower-cased, function words left out; none for a query of no word. */
export function keywordTerms(text: string): string[] {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return (content.length ? content : words).slice(0, MAX_TERMS);
}

/**
 * Turns a natural-language query into an FTS5 expression that is only ever text: every word is
 * quoted, so characters such as `"`, `*`, `:`, `-` or `NEAR` are searched for, never parsed.
 * Common English function words are left out (unless the query has nothing else): they match
 * most passages, which makes ranking slow and adds nothing to it. Stemming is the index's: its
 * Porter tokenizer (migration 0008) stems each quoted word as it stemmed the passages' text.
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

export function ftsQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  const content = words.filter((w) => !STOPWORDS.has(w));
  const terms = (content.length ? content : words).slice(0, MAX_TERMS);
  // OR, so that a question finds passages holding some of its words; BM25 ranks the best first.
  return terms.length ? terms.map((w) => `"${w}"`).join(' OR ') : null;
}

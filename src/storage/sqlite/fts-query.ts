/**
 * Turns a natural-language query into an FTS5 expression that is only ever text: every word is
 * quoted, so characters such as `"`, `*`, `:`, `-` or `NEAR` are searched for, never parsed.
 */
const MAX_TERMS = 64;

export function ftsQuery(text: string): string | null {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const unique = [...new Set(words)].slice(0, MAX_TERMS);
  // OR, so that a question finds passages holding some of its words; BM25 ranks the best first.
  return unique.length ? unique.map((w) => `"${w}"`).join(' OR ') : null;
}

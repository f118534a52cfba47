/** Reads URL documents for learning: the guarded fetcher, set up from configuration. */
import type { Config } from '../config';
import { LIMITS } from '../limits';
import { fetchDocument } from '../fetch/fetch-document';

export function urlReader(config: Config): (url: string) => Promise<{ text: string; title: string | null }> {
  return async (url) => {
    const doc = await fetchDocument(url, { allowPrivate: config.fetchAllowPrivate });
    return { text: doc.text, title: doc.title ? doc.title.slice(0, LIMITS.titleChars) : null };
  };
}

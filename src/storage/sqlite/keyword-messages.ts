/** The messages between the store's keyword reader (keyword-reader.ts) and its thread (keyword-reader-thread.ts). */
import type { KeywordHit } from '../passages';

/** A keyword search as the repository takes it. */
export interface KeywordSearch {
  accountId: string;
  containerId: string;
  query: string;
  limit: number;
}

/** A search to run, or the end. */
export type KeywordRequest = ({ id: number } & KeywordSearch) | { close: true };
/** A search's hits or why there are none, or the end. */
export type KeywordReply = { id: number; hits: KeywordHit[] } | { id: number; error: string } | { closed: true };

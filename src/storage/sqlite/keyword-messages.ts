/** The messages between the store's keyword reader (keyword-reader.ts) and its thread (keyword-reader-thread.ts). */
import type { KeywordHit } from '../passages';

/** A keyword search as the repository takes it. */
export interface KeywordSearch {
  accountId: string;
  containerIds: string[];
  query: string;
  limit: number;
}

/** A search to run, or the end. */
export type KeywordRequest = ({ id: number } & KeywordSearch) | { close: true };
/** A search's hits or why there are none, or the end. */
export type KeywordReply = { id: number; hits: KeywordHit[] } | { id: number; error: string } | { closed: true };

/**
 * Claim words shared by the reader and its thread, a query's at its id modulo CLAIMS: its id while
 * queued, BEGUN once the thread runs it, TAKEN_BACK once the searching thread runs it instead. A
 * query whose id the word no longer holds is not the thread's to run.
 */
export const CLAIMS = 1024;
export const BEGUN = -1;
export const TAKEN_BACK = -2;

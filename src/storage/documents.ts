/** Documents: what apps add to a container (their learning is queued by src/learning/queue.ts). */

export type DocumentStatus = 'queued' | 'learned' | 'failed';

export interface DocumentRow {
  id: string;
  accountId: string;
  containerId: string;
  title: string | null;
  content: string | null;
  url: string | null;
  customId: string | null;
  metadata: Record<string, unknown> | null;
  status: DocumentStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  learnedAt: number | null;
}

export interface DocumentPage {
  documents: DocumentRow[];
  /** Where the next page starts, or null when no documents follow the last one. */
  next: DocumentPosition | null;
}

/**
 * Where a page of documents starts: just after this position, newest first. `seq` orders documents
 * added in the same millisecond by when they were stored (random ids cannot).
 */
export interface DocumentPosition {
  createdAt: number;
  seq: number;
}

export interface DocumentRepository {
  /**
   * Inserts the document, or returns the one its container already holds under `customId` and
   * changes nothing (a unique constraint decides, not a read first). Its learning job is not
   * this repository's: see src/learning/queue.ts.
   */
  insert(doc: DocumentRow): Promise<{ inserted: boolean; document: DocumentRow }>;
  get(accountId: string, id: string): Promise<DocumentRow | null>;
  /** The container's document holding `customId`, or null. */
  getByCustomId(accountId: string, containerId: string, customId: string): Promise<DocumentRow | null>;
  /** The documents of the given containers, newest first, a page after `after` (null to start). */
  list(accountId: string, containerIds: string[], limit: number, after: DocumentPosition | null): Promise<DocumentPage>;
  /** How many documents the containers hold. */
  count(accountId: string, containerIds: string[]): Promise<number>;
  /** The account's documents in the order they were stored, a page after `afterSeq` (0 to start). */
  listInInsertOrder(
    accountId: string,
    afterSeq: number,
    limit: number,
  ): Promise<{ documents: DocumentRow[]; lastSeq: number | null }>;
  /** Marks the document learned, at the times given (a rebuilt one keeps those it had). */
  markLearned(accountId: string, id: string, times: { learnedAt: number; updatedAt: number }): Promise<void>;
  /** Marks the document failed for good, with the reason shown to its owner. */
  markFailed(accountId: string, id: string, error: string, at: number): Promise<void>;
  /** Deletes the document row alone; deleting one with what was learned from it is `ForgettingRepository.forget`'s. */
  delete(accountId: string, id: string): Promise<void>;
  /** Per document: its size in bytes (its text, or what a URL was read as) and its first characters. */
  describe(
    accountId: string,
    ids: string[],
    openingChars: number,
  ): Promise<Map<string, { bytes: number; opening: string }>>;
}

/** Documents: what apps add to a container, and how each is queued for learning. */
import type { PassageInput } from './passages';

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

/**
 * What learning does with a newly inserted document. `learn` (every document an app adds): read
 * it, index it and extract its facts. `rebuild` (a document that was learned on another server
 * and arrives by import, its facts with it): index it again, extract nothing, keep its learned
 * and updated times; `passages` are the text a URL document was read as there, indexed as they
 * are rather than fetched again. `none`: queue nothing (a document that failed there stays failed).
 */
export type DocumentLearning = { mode: 'learn' } | { mode: 'rebuild'; passages?: PassageInput[] | null } | { mode: 'none' };

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
   * Inserts the document and its learning job (`learn` unless told, see `DocumentLearning`), or
   * returns the one already holding `customId` and changes nothing. The job is queued at
   * `queuedAt`, the document's creation unless told (an import queues old documents now).
   */
  insertDocument(doc: DocumentRow, learning?: DocumentLearning, queuedAt?: number): { inserted: boolean; document: DocumentRow };
  getDocument(accountId: string, id: string): DocumentRow | null;
  /** The container's document holding `customId`, or null. */
  getDocumentByCustomId(accountId: string, containerId: string, customId: string): DocumentRow | null;
  listDocuments(accountId: string, containerIds: string[], limit: number, after: DocumentPosition | null): DocumentPage;
  /** The account's documents in the order they were stored, a page after `afterSeq` (0 to start). */
  listDocumentsInInsertOrder(accountId: string, afterSeq: number, limit: number): { documents: DocumentRow[]; lastSeq: number | null };
  deleteDocument(accountId: string, id: string): void;
  /** Per document: its size in bytes (its text, or what a URL was read as) and its first characters. */
  describeDocuments(accountId: string, ids: string[], openingChars: number): Map<string, { bytes: number; opening: string }>;
}

/** Facts (`memories` in storage): learned from documents or written by the owner, with their history. */

export interface Fact {
  id: string;
  accountId: string;
  containerId: string | null;
  content: string;
  title: string | null;
  static: boolean;
  createdAt: number;
  updatedAt: number;
  /** A learned fact: the document it was extracted from (null once that document is deleted and the fact kept: see `reviewedAt`). */
  sourceDocumentId?: string | null;
  /** A learned fact: the position of the passage it came from. */
  sourcePosition?: number | null;
  /** When the owner last edited or confirmed the fact; null when never (see `ForgettingRepository.forget`). */
  reviewedAt?: number | null;
  /** A fact saved with add_memory by a key: that credential's id (null when the owner saved it). */
  writtenBy?: string | null;
}

/** Where a learned fact came from. */
export interface FactSource {
  documentId: string;
  position: number;
}

/** One earlier wording of a fact. */
export interface FactHistoryEntry {
  content: string;
  replacedAt: number;
}

export interface FactRepository {
  /** Inserts a fact, with its earlier wordings (oldest first) when it arrives with a history (an import). */
  insertFact(memory: Fact, history?: FactHistoryEntry[]): void;
  getFact(accountId: string, id: string): Fact | null;
  /**
   * Rewrites a fact, keeping its old content in its history (and its passage, when in a container,
   * searchable under the new content); false when the account holds no such fact.
   */
  updateFactContent(accountId: string, id: string, content: string, at: number, source?: FactSource): boolean;
  /** The fact's earlier contents, oldest first. */
  listFactHistory(accountId: string, id: string): FactHistoryEntry[];
  listStaticFacts(accountId: string): Fact[];
  /** Every fact of the account, oldest first. */
  listFacts(accountId: string): Fact[];
  listRecentFacts(accountId: string, containerIds: string[], limit: number): Fact[];
  /** Records that the owner confirmed (or edited) the fact at `at`; false when the account holds no such fact. */
  markFactReviewed(accountId: string, id: string, at: number): boolean;
}

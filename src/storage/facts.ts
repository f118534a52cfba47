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
  /**
   * A learned fact: the position of the passage it came from. Kept when that document is deleted and
   * the fact kept, so that the fact still says it was learned (its page: "from a document since deleted").
   */
  sourcePosition?: number | null;
  /** When the owner last edited or confirmed the fact; null when never (see `ForgettingRepository.forget`). */
  reviewedAt?: number | null;
  /** A fact saved with add_memory by a key: that credential's id (null when the owner saved it). */
  writtenBy?: string | null;
}

/** Where a page of facts, most recently changed first, starts: just after this fact. */
export interface FactPosition {
  updatedAt: number;
  id: string;
}

export interface RecentFacts {
  /** Only the facts after this one: the next page. */
  after?: FactPosition | null;
  /**
   * Leaves out what imports from these sources brought (`ImportOrigin.source`): the facts, and the
   * facts learned from the documents.
   */
  exceptImportedFrom?: readonly string[];
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

/**
 * A fact in a container is searchable as a passage of its own: the fact owns that passage (its
 * row in `passages`, written and deleted with the fact), so this repository writes it. Queueing
 * its embedding is src/learning/queue.ts's.
 */
export interface FactRepository {
  /**
   * Inserts a fact (in a container: with its passage), with its earlier wordings (oldest first)
   * when it arrives with a history (an import).
   */
  insert(memory: Fact, history?: FactHistoryEntry[]): Promise<void>;
  get(accountId: string, id: string): Promise<Fact | null>;
  /**
   * Rewrites a fact, keeping its old content in its history (and its passage, when in a container,
   * holding the new content); false when the account holds no such fact.
   */
  updateContent(accountId: string, id: string, content: string, at: number, source?: FactSource): Promise<boolean>;
  /** The fact's earlier contents, oldest first. */
  listHistory(accountId: string, id: string): Promise<FactHistoryEntry[]>;
  /** The profile's standing facts, most recently changed first. */
  listStatic(accountId: string): Promise<Fact[]>;
  /** Every fact of the account, oldest first. */
  list(accountId: string): Promise<Fact[]>;
  /** The containers' facts, most recently changed first (see RecentFacts for a later page, and what to leave out). */
  listRecent(accountId: string, containerIds: string[], limit: number, options?: RecentFacts): Promise<Fact[]>;
  /** How many facts the containers hold. */
  count(accountId: string, containerIds: string[]): Promise<number>;
  /** Records that the owner confirmed (or edited) the fact at `at`; false when the account holds no such fact. */
  markReviewed(accountId: string, id: string, at: number): Promise<boolean>;
}

/**
 * Passages deleted by any program on a store that one server owns (SQLite): the server itself, or
 * `engram import` beside it replacing a changed note. The running server's in-memory indexes follow
 * it (search/removal-follower.ts). A shared store (PostgreSQL) has its vector feed instead.
 */

/** One passage deleted; `seq` numbers the deletions in the order they were made, never twice. */
export interface PassageRemoval {
  seq: number;
  passageId: number;
}

export interface PassageRemovals {
  /** Up to `limit` deletions after `after`, oldest first. */
  since(after: number, limit: number): Promise<PassageRemoval[]>;
  /** Forgets the deletions up to `seq`, once the indexes have dropped them. */
  prune(seq: number): Promise<void>;
}

/**
 * The change feed of stored vectors, where several processes share a store (PostgreSQL): each
 * process that searches keeps its own in-memory vector indexes and follows what every other
 * process stores and removes. Commits that changed vectors are numbered in commit order; a
 * follower applies the changes after the last number it applied, woken as each commit lands.
 */
import type { VectorTier } from './passages';

/** One passage's vectors of one tier stored (replaced) or removed, by the commit numbered `commit`. */
export interface VectorChange {
  commit: number;
  passageId: number;
  tier: VectorTier;
  /** Removed (its passage forgotten, its vectors dropped); otherwise stored: read them with `VectorRepository.get`. */
  removed: boolean;
}

export interface VectorFeed {
  /** The number of the last commit that changed vectors; 0 before the first. */
  head(): Promise<number>;
  /**
   * The feed's id (this database's, made with it), its head, and its floor: the last commit
   * pruned, below which `since` cannot answer.
   */
  mark(): Promise<{ id: string; head: number; floor: number }>;
  /**
   * The changes of up to `commits` commits after commit `after`, in commit order and, within a
   * commit, in the order made (a passage's vectors replaced reads as removed, then stored). No
   * commit numbered `after` or below lands later. Null when commits after `after` were pruned
   * (`after` is below the floor): the follower has missed changes and must read the vectors again.
   */
  since(after: number, commits: number): Promise<VectorChange[] | null>;
  /**
   * Deletes the oldest commits and their changes, keeping the newest `kept` (the feed's retention
   * unless told: ENGRAM_FEED_KEEP_COMMITS), and raises the floor to the last one deleted; returns how
   * many were deleted.
   */
  prune(kept?: number): Promise<number>;
  /**
   * Calls `woken(commit)` as each commit that changed vectors lands, from any process, until
   * closed. After the connection that listens was lost and made again, `woken(null)`: commits
   * landed meanwhile unheard, so read `since` the last one applied.
   */
  listen(woken: (commit: number | null) => void): Promise<{ close(): Promise<void> }>;
}

/**
 * What the contract (docs/protocol.md, "Limits") promises per credential and per account where several processes share the
 * store (PostgreSQL): the per-credential limiter's count, and the account's concurrent turns.
 * Where one process owns the store (SQLite), that process counts both in memory.
 */
export interface SharedLimits {
  /**
   * Counts one call on `key` at `now` when fewer than `limit` were counted in the minute before it,
   * and returns true; otherwise counts nothing and returns false.
   */
  take(key: string, limit: number, now: number): Promise<boolean>;
  /**
   * Runs `turn` holding one of the account's `limit` turn slots, or returns `busy()`'s answer when
   * every slot is held, by any process. A process that dies lets go of its slots.
   */
  withTurn<T>(accountId: string, limit: number, turn: () => Promise<T>, busy: () => never): Promise<T>;
}

/** Server-wide settings: values of the server, not of an account (the session signing key, say). */

export interface SettingsRepository {
  /** The value of a server-wide setting, inserted first as `make()` when there is none (race-free). */
  ensure(key: string, make: () => string): Promise<string>;
  set(key: string, value: string): Promise<void>;
  /** The value of a setting; null when there is none. */
  get(key: string): Promise<string | null>;
  /**
   * The value of a setting, held by the caller's transaction until it ends, for work one process
   * at a time does (the exchange's backfill): null when there is none, or when another transaction
   * holds it on a shared store (SQLite's write transaction holds the whole store).
   */
  claim(key: string): Promise<string | null>;
}

/**
 * The setting that holds the token of the search indexes saved in the data directory
 * (src/search/search-engine.ts). Any change to the stored vectors drops it: the triggers of
 * migrations/0017_vector_snapshot.sql for updates and removals, the learning's writes for inserts.
 */
export const VECTOR_SNAPSHOT_SETTING = 'vector_snapshot';

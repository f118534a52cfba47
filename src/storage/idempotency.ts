/** Idempotency keys of writes (src/operations/calls/idempotency.ts). */

/**
 * A write's idempotency key as remembered, per account and credential: `pending` while the first
 * attempt runs, `done` with its answer, `interrupted` when the server stopped while it ran (its
 * outcome is unknown).
 */
export interface IdempotencyRecord {
  accountId: string;
  credentialId: string;
  key: string;
  /** SHA-256 of the operation and its input: the same key with another request is refused. */
  digest: string;
  state: 'pending' | 'done' | 'interrupted';
  /** The first answer's JSON, once `done`. */
  response: string | null;
  createdAt: number;
  expiresAt: number;
}

export interface IdempotencyRepository {
  /**
   * Inside a transaction: holds the key until that transaction ends, so that another transaction
   * reading it (another request with the same key, on any process) waits for this one's outcome.
   * Where one connection serves the store (SQLite), its transactions already run one at a time.
   */
  hold(accountId: string, credentialId: string, key: string): Promise<void>;
  /** The key's record unless it has expired by `now`. */
  get(accountId: string, credentialId: string, key: string, now: number): Promise<IdempotencyRecord | null>;
  /** Writes the record, replacing one under the same key (an expired one, or its own pending row). */
  put(record: IdempotencyRecord): Promise<void>;
  /** Forgets a key whose first attempt failed, so that a retry is carried out for real. */
  delete(accountId: string, credentialId: string, key: string): Promise<void>;
  /** Forgets every key expired by `now`; returns how many. */
  deleteExpired(now: number): Promise<number>;
  /** At start, when nothing runs: pending keys become interrupted; returns how many. */
  interruptPending(): Promise<number>;
}

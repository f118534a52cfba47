/**
 * What every PostgreSQL repository works over: a client of Bun's built-in driver (the pool, or the
 * connection of an open transaction or savepoint), and the few helpers each needs. Results come
 * back with camelCase keys (the client's `SQL.camel` transform); int8 columns come back as
 * strings and are made numbers here (`numbers`), since every one of ours (ids, milliseconds) fits.
 */
import type { SQL } from 'bun';
import { UniqueViolation } from '../../errors';

export interface PostgresContext {
  /** Where statements run: the pool outside a transaction, the transaction's connection inside one. */
  sql: SQL;
  /**
   * Runs `fn`'s writes as one: in their own transaction, or as part of the one open, which commits
   * or rolls them back with the rest (not as a savepoint of their own, as on SQLite).
   */
  atomic<T>(fn: (sql: SQL) => Promise<T>): Promise<T>;
  /**
   * Runs `fn` once what was just written is committed: now, or when the open transaction commits
   * (not at all if it rolls back). For work that cannot run inside a transaction, such as VACUUM.
   */
  afterCommit(fn: () => void): void;
}

/** The row with the named int8 columns as numbers (null stays null). */
export function numbers<T>(row: Record<string, unknown>, ...columns: string[]): T {
  for (const c of columns) if (row[c] != null) row[c] = Number(row[c]);
  return row as T;
}

/** A JSON column read back: `json` columns arrive as their text. */
export const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** Runs a write, turning PostgreSQL's refusal of a duplicate unique value (23505) into the engine-neutral `UniqueViolation`. */
export async function uniqueChecked<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (err) {
    if ((err as { errno?: unknown } | null)?.errno === '23505')
      throw new UniqueViolation((err as Error).message, { cause: err });
    throw err;
  }
}

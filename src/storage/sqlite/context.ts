/** What every SQLite repository works over: the connection, drizzle on it, and its transactions. */
import type { Database } from 'bun:sqlite';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import type { Transactions } from '../store';
import { UniqueViolation } from '../../errors';

export interface SqliteContext extends Transactions {
  raw: Database;
  db: BunSQLiteDatabase;
}

export function sqliteContext(raw: Database): SqliteContext {
  return {
    raw,
    db: drizzle(raw),
    /**
     * BEGIN IMMEDIATE: the write lock is taken at the start. A deferred transaction that reads and
     * then writes fails at once with SQLITE_BUSY (no busy wait) when another connection, such as
     * the learning worker's, committed in between. Nested calls become savepoints.
     */
    transaction: (fn) => raw.transaction(fn).immediate(),
    /** BEGIN DEFERRED: in WAL mode the first read fixes the snapshot, and writers go on meanwhile. */
    snapshot: (fn) => raw.transaction(fn).deferred(),
    commitsByOthers: () => raw.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version,
    close: () => raw.close(),
  };
}

/** Runs a write, turning SQLite's refusal of a duplicate unique value into the engine-neutral `UniqueViolation`. */
export function uniqueChecked<T>(write: () => T): T {
  try {
    return write();
  } catch (err) {
    const code = (err as { code?: unknown } | null)?.code;
    if (code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
      throw new UniqueViolation((err as Error).message, { cause: err });
    }
    throw err;
  }
}

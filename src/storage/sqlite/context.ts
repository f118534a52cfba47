/**
 * What every SQLite repository works over: the connection, drizzle on it, and its synchronous
 * transactions. bun:sqlite answers every statement at once, so the repositories here are written
 * synchronously (`Synchronous<R>`); sqlite-store.ts turns them into the Store's promises.
 */
import type { Database, Statement } from 'bun:sqlite';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import { UniqueViolation } from '../../errors';

/** A repository as SQLite implements it: the interface's methods, answering at once instead of with a promise. */
export type Synchronous<R> = {
  [K in keyof R]: R[K] extends (...args: infer A) => Promise<infer T> ? (...args: A) => T : never;
};

/**
 * The statements that open and end transactions and savepoints, prepared once a connection: a
 * learning batch opens several savepoints a job, and preparing each anew cost more than running it.
 * Savepoints share one name: they nest, and each release or rollback reaches the innermost.
 */
export interface TransactionStatements {
  /**
   * IMMEDIATE for writes: the write lock is taken at the start. A deferred transaction that reads
   * and then writes fails at once with SQLITE_BUSY (no busy wait) when another connection, such as
   * the learning worker's, committed in between. DEFERRED for a snapshot's reads.
   */
  begin(mode: 'IMMEDIATE' | 'DEFERRED'): void;
  commit(): void;
  rollback(): void;
  savepoint(): void;
  release(): void;
  rollbackToSavepoint(): void;
  /** Lets go of them, before the connection closes: a statement left open keeps it open after `close`. */
  finalize(): void;
}

export interface SqliteContext {
  raw: Database;
  db: BunSQLiteDatabase;
  statements: TransactionStatements;
  /**
   * Runs `fn`'s writes as one: in their own transaction (BEGIN IMMEDIATE), or as part of the one
   * open, which commits or rolls them back with the rest. Not as a savepoint of their own: each
   * page first written under a savepoint is copied to its journal, and a learning job's writes
   * nested three deep cost 10 % more for it. A caller that goes on after a failure nests a
   * transaction (`tx.transaction`) for that.
   */
  atomic<T>(fn: () => T): T;
  /**
   * Runs `fn` once what was just written is committed: now, or when the transaction open on the
   * connection commits (not at all if it rolls back). For work that cannot run inside a
   * transaction, such as a WAL checkpoint.
   */
  afterCommit(fn: () => void): void;
  /** The open transaction ended: runs (committed) or drops the work `afterCommit` held for it. */
  ended(committed: boolean): void;
  /**
   * A drizzle query prepared once (`.prepare()`, its values as `sql.placeholder`s), for what every
   * request reads: drizzle builds a query's SQL anew each call (0.3–0.6 ms at load 11), far more
   * than SQLite takes to answer it. Its statement is let go with the transaction statements, before
   * close.
   */
  prepared<Q extends object>(query: Q): Q;
}

export function sqliteContext(raw: Database): SqliteContext {
  let held: (() => void)[] = [];
  const made: Statement[] = [];
  const prepared = (sql: string) => {
    const statement = raw.prepare(sql);
    made.push(statement);
    return () => void statement.run();
  };
  const begin = { IMMEDIATE: prepared('BEGIN IMMEDIATE'), DEFERRED: prepared('BEGIN DEFERRED') };
  const statements: TransactionStatements = {
    begin: (mode) => begin[mode](),
    commit: prepared('COMMIT'),
    rollback: prepared('ROLLBACK'),
    savepoint: prepared('SAVEPOINT nested'),
    release: prepared('RELEASE nested'),
    rollbackToSavepoint: prepared('ROLLBACK TO nested'),
    finalize: () => {
      for (const statement of made.splice(0)) statement.finalize();
    },
  };
  return {
    raw,
    db: drizzle(raw),
    statements,
    atomic(fn) {
      if (raw.inTransaction) return fn();
      statements.begin('IMMEDIATE');
      try {
        const result = fn();
        statements.commit();
        return result;
      } catch (err) {
        // A failure SQLite answers by rolling the whole transaction back leaves nothing to undo here.
        if (raw.inTransaction) statements.rollback();
        throw err;
      }
    },
    afterCommit(fn) {
      if (raw.inTransaction) held.push(fn);
      else fn();
    },
    prepared(query) {
      // drizzle's bun-sqlite PreparedQuery keeps its statement as `stmt`.
      made.push((query as unknown as { stmt: Statement }).stmt);
      return query;
    },
    ended(committed) {
      const run = held;
      held = [];
      if (committed) for (const fn of run) fn();
    },
  };
}

/** Rows a multi-row insert takes at once: a batch kept while the disk was full can pass SQLite's 32,766 bound variables. */
const INSERT_CHUNK = 1000;

/** Runs `insert` over the rows a chunk at a time (nothing for none). */
export function inChunks<T>(rows: T[], insert: (chunk: T[]) => void): void {
  for (let i = 0; i < rows.length; i += INSERT_CHUNK) insert(rows.slice(i, i + INSERT_CHUNK));
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

/**
 * One connection shared by every request of a thread, and transactions that await. bun:sqlite runs
 * a statement the moment it is called, so while a transaction awaits between its statements, any
 * other request's statement would run on the same connection and land inside it (committed or
 * rolled back with it). The lock keeps them apart: while a transaction holds the connection,
 * statements from outside wait, in the order they came, and run once it ends; the transaction's own
 * (through its `tx`) go straight through. When the connection is free, a statement runs at once and
 * pays nothing but its promise.
 */
import { type ScopeToken, selfWait, TransactionScope } from '../transaction-scope';

export class ConnectionLock {
  /** The transaction holding the connection; null while it is free. */
  private holder: ScopeToken | null = null;
  /** What waits for the connection: a statement to run, or a transaction to take it. */
  private readonly waiting: (() => void)[] = [];
  /**
   * The transaction the running code is inside of, so that misuse is refused rather than waiting
   * for itself. A transaction holds the connection only across store work, which on SQLite
   * answers within the same turn, so no timer it started fires while it is open.
   */
  private readonly scope = new TransactionScope();

  /** Runs a statement now when the connection is free; otherwise once the transactions before it end. */
  run<T>(statement: () => T): Promise<T> {
    if (this.holder === null) return settle(statement);
    if (this.isInside()) return Promise.reject(selfWait());
    return new Promise<T>((resolve, reject) => {
      this.waiting.push(() => settle(statement).then(resolve, reject));
    });
  }

  /**
   * Holds the connection for `fn` (a transaction): from when it starts, once the statements and
   * transactions before it are done, until it settles.
   */
  async hold<T>(fn: () => Promise<T>): Promise<T> {
    if (this.isInside()) throw selfWait();
    const token = this.scope.open();
    if (this.holder === null) this.holder = token;
    else
      await new Promise<void>((resolve) =>
        this.waiting.push(() => {
          this.holder = token;
          resolve();
        }),
      );
    try {
      return await this.scope.run(token, fn);
    } finally {
      this.release();
    }
  }

  /** Whether the running code is inside the transaction that holds the connection (its `tx` may be used). */
  isInside(): boolean {
    return this.holder !== null && this.scope.isInside(this.holder);
  }

  /** Hands the connection on: statements waiting run, in order, until a waiting transaction takes it. */
  private release(): void {
    this.holder = null;
    while (this.holder === null && this.waiting.length) this.waiting.shift()!();
  }
}

/** The statement's answer, or its error, as a promise. */
export function settle<T>(statement: () => T): Promise<T> {
  try {
    return Promise.resolve(statement());
  } catch (err) {
    return Promise.reject(err);
  }
}

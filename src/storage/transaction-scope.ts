/**
 * Which open transaction the running code is inside of, for every engine: a call on the store
 * itself from inside its own transaction is refused (on SQLite it would wait for the transaction
 * to end, on PostgreSQL it would run on another connection, outside it, and could wait on the
 * transaction's own row locks), and so is a transaction's `tx` used after it ended.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** One open transaction or savepoint; `parent` is the transaction a savepoint is inside of. */
export interface ScopeToken {
  open: boolean;
  readonly parent: ScopeToken | null;
}

export class TransactionScope {
  private readonly inside = new AsyncLocalStorage<ScopeToken>();

  /** A new transaction's token, opened inside the one the running code is in (a savepoint), if any. */
  open(): ScopeToken {
    return { open: true, parent: this.inside.getStore() ?? null };
  }

  /** Runs `fn` inside the transaction of `token`, which closes when `fn` settles. */
  async run<T>(token: ScopeToken, fn: () => Promise<T>): Promise<T> {
    try {
      return await this.inside.run(token, fn);
    } finally {
      token.open = false;
    }
  }

  /**
   * Whether the running code is inside an open transaction. Work a transaction started without
   * awaiting it (a timer) counts as inside only while that transaction is open.
   */
  isInsideOpen(): boolean {
    for (let t: ScopeToken | null = this.inside.getStore() ?? null; t; t = t.parent) if (t.open) return true;
    return false;
  }

  /** Whether `token` is open and the running code is inside it (directly, or in a savepoint of it). */
  isInside(token: ScopeToken): boolean {
    if (!token.open) return false;
    for (let t: ScopeToken | null = this.inside.getStore() ?? null; t; t = t.parent) if (t === token) return true;
    return false;
  }
}

export const selfWait = () =>
  new Error(
    "The store was called inside its own transaction, where the call would wait for the transaction to end: use the transaction's tx.",
  );

export const outsideUse = () =>
  new Error("A transaction's tx was used outside it (after it ended, or from other work).");

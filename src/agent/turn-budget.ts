/**
 * The account's concurrent-turn budget (docs/protocol.md, "Limits": 2). A turn is a static add, a forget, an ask or
 * a workflow; one more while the budget is spent answers 429 `rate_limited` at once, never queued.
 */
import { ServiceError } from '../errors';
import type { SharedLimits } from '../storage/shared-limits';

const TURNS_PER_ACCOUNT = 2;

export class TurnBudget {
  private readonly running = new Map<string, number>();

  /** With `shared` (a store several processes share), the budget is the account's on every process. */
  constructor(
    readonly limit: number = TURNS_PER_ACCOUNT,
    private readonly shared: SharedLimits | null = null,
  ) {}

  /** Runs `turn` inside the account's budget; throws 429 `rate_limited` when the budget is spent. */
  async run<T>(accountId: string, turn: () => T | Promise<T>): Promise<T> {
    const spent = (): never => {
      throw new ServiceError(
        'rate_limited',
        `This account already runs ${this.limit} turns at once; try again when one ends.`,
        { concurrent_turns: this.limit },
      );
    };
    if (this.shared) return this.shared.withTurn(accountId, this.limit, () => this.counted(accountId, turn), spent);
    if ((this.running.get(accountId) ?? 0) >= this.limit) spent();
    return this.counted(accountId, turn);
  }

  private async counted<T>(accountId: string, turn: () => T | Promise<T>): Promise<T> {
    this.running.set(accountId, (this.running.get(accountId) ?? 0) + 1);
    try {
      return await turn();
    } finally {
      const left = (this.running.get(accountId) ?? 1) - 1;
      if (left <= 0) this.running.delete(accountId);
      else this.running.set(accountId, left);
    }
  }

  /** Turns running now for the account, in this process. */
  inUse(accountId: string): number {
    return this.running.get(accountId) ?? 0;
  }
}

/**
 * The per-credential request limiter (it protects, it does not bill): a sliding minute held in
 * memory where one process serves the store, or counted in the store that several processes share.
 */
import type { Clock } from '../../clock';
import { ServiceError } from '../../errors';
import type { SharedLimits } from '../../storage/shared-limits';

const WINDOW_MS = 60_000;

/** Counts one call for a key (a credential), or throws 429 `rate_limited` when its minute is full. */
export interface RequestLimiter {
  readonly limitPerMin: number;
  take(key: string): void | Promise<void>;
}

const rateLimited = (limitPerMin: number) =>
  new ServiceError('rate_limited', `Too many requests on this credential: at most ${limitPerMin} a minute.`, {
    limit_per_min: limitPerMin,
  });

/** The limiter of a store several processes share: each call counted in it, so a credential's minute is the same on every replica. */
export class SharedRateLimiter implements RequestLimiter {
  constructor(
    private readonly limits: SharedLimits,
    private readonly clock: Clock,
    readonly limitPerMin: number,
  ) {}

  async take(key: string): Promise<void> {
    if (!(await this.limits.take(key, this.limitPerMin, this.clock.now()))) throw rateLimited(this.limitPerMin);
  }
}

export class RateLimiter implements RequestLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(
    private readonly clock: Clock,
    readonly limitPerMin: number,
  ) {}

  /** Counts one call for the credential, or throws 429 `rate_limited` when its minute is full. */
  take(credentialId: string): void {
    const now = this.clock.now();
    const recent = (this.calls.get(credentialId) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= this.limitPerMin) {
      this.calls.set(credentialId, recent);
      throw rateLimited(this.limitPerMin);
    }
    recent.push(now);
    this.calls.set(credentialId, recent);
  }
}

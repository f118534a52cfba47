/** The per-credential request limiter: a sliding minute, held in memory (it protects, it does not bill). */
import type { Clock } from '../clock';
import { ServiceError } from '../errors';

const WINDOW_MS = 60_000;

export class RateLimiter {
  private readonly calls = new Map<string, number[]>();

  constructor(private readonly clock: Clock, readonly limitPerMin: number) {}

  /** Counts one call for the credential, or throws 429 `rate_limited` when its minute is full. */
  take(credentialId: string): void {
    const now = this.clock.now();
    const recent = (this.calls.get(credentialId) ?? []).filter((at) => at > now - WINDOW_MS);
    if (recent.length >= this.limitPerMin) {
      this.calls.set(credentialId, recent);
      throw new ServiceError('rate_limited', `Too many requests on this credential: at most ${this.limitPerMin} a minute.`, {
        limit_per_min: this.limitPerMin,
      });
    }
    recent.push(now);
    this.calls.set(credentialId, recent);
  }
}

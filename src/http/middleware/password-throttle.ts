/**
 * One brute-force throttle for every door that checks the owner's password (the web sign-in form
 * and POST /v1/session): attempts a minute per client address, counted together, so guessing
 * through one door does not reset or dodge the count of the other.
 */
import type { Context } from 'hono';
import type { Clock } from '../../clock';
import { ServiceError } from '../../errors';
import { RateLimiter } from '../../operations/calls/rate-limiter';
import type { Site } from '../../site';
import { clientAddress } from '../client-address';

/** Password attempts a minute from one address: argon2 is slow on purpose, this keeps guessing slower still. */
const SIGN_IN_PER_MIN = 10;

export class PasswordThrottle {
  private readonly limiter: RateLimiter;

  constructor(
    clock: Clock,
    private readonly site: Site,
    readonly limitPerMin = SIGN_IN_PER_MIN,
  ) {
    this.limiter = new RateLimiter(clock, limitPerMin);
  }

  /** Counts one password attempt from the request's address; throws 429 `rate_limited` once its minute is full. */
  take(c: Context): void {
    try {
      this.limiter.take(`sign-in:${clientAddress(c, this.site)}`);
    } catch {
      c.header('Retry-After', '60');
      throw new ServiceError(
        'rate_limited',
        `Too many sign-in attempts from this address: at most ${this.limitPerMin} a minute. Wait a minute and try again.`,
        {
          limit_per_min: this.limitPerMin,
        },
      );
    }
  }
}

/** Time as the server sees it. Tests hand in a clock they can move; nothing else reads Date.now. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A clock that stands still until told to move; for tests of expiry and rate windows. */
export class ManualClock implements Clock {
  constructor(private ms = Date.parse('2026-01-01T00:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

export const DAY_MS = 86_400_000;

export const iso = (ms: number | null): string | null => (ms == null ? null : new Date(ms).toISOString());

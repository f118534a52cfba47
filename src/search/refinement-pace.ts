/**
 * How fast the strong tier's index has grown over the last minutes: the pace at which refinement
 * reaches the passages, from which `/healthz` and the Memory page say when full quality is expected.
 */

/** The stretch the pace is taken over: long enough to smooth the pauses searches and new documents make. */
const WINDOW_MS = 120_000;
/** With nothing refined for this long, refinement is held up (learning new documents comes first): no pace. */
const STALE_MS = 30_000;

export class RefinementPace {
  private samples: { at: number; count: number }[] = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** Records how many passages the strong index holds, after it grew. */
  record(count: number): void {
    const at = this.now();
    this.samples.push({ at, count });
    while (this.samples[0]!.at <= at - WINDOW_MS) this.samples.shift();
  }

  /** Passages refined a second over the window; null when refinement is not under way. */
  perSecond(): number | null {
    const now = this.now();
    const recent = this.samples.filter((s) => s.at > now - WINDOW_MS);
    const first = recent[0];
    const last = recent.at(-1);
    if (!first || !last || last.at <= now - STALE_MS) return null;
    const grown = last.count - first.count;
    return last.at > first.at && grown > 0 ? (grown * 1000) / (last.at - first.at) : null;
  }

  /** Seconds until `left` more passages are refined at the pace; null when there is no pace to go by. */
  secondsFor(left: number): number | null {
    if (left <= 0) return 0;
    const pace = this.perSecond();
    return pace ? Math.ceil(left / pace) : null;
  }
}

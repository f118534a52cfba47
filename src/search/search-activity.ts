/**
 * Searches in flight, in memory shared with the learning thread, so that refinement keeps its model
 * runs out of their way. The strong model is memory-bound: a refinement run beside a search slows
 * that search's query vector and scans however low the learning thread's priority is
 * (docs/performance.md). So before each run the learning thread waits for a quiet moment, no search
 * in flight and none ended in the last QUIET_MS, but never longer than MAX_WAIT_MS: searches sent
 * back to back slow refinement to a run a second, and never stop it. A search that never ends (a
 * fault) only slows refinement the same way.
 */

/** A pause this long after a search means the caller is not sending the next one at once. */
export const QUIET_MS = 25;
/** The longest refinement waits for quiet before it runs anyway. */
export const MAX_WAIT_MS = 1000;

/** Shared words: searches in flight (Int32, index 0), and when the last one ended (BigInt64, index 1, epoch ms). */
const BYTES = 16;

export class SearchActivity {
  readonly buffer: SharedArrayBuffer;
  private readonly inFlight: Int32Array;
  private readonly lastEnd: BigInt64Array;

  /** A new record, or (on another thread) the one whose `buffer` was passed over. */
  constructor(buffer = new SharedArrayBuffer(BYTES)) {
    this.buffer = buffer;
    this.inFlight = new Int32Array(buffer, 0, 1);
    this.lastEnd = new BigInt64Array(buffer, 8, 1);
  }

  /** Runs a search, recorded as in flight until it settles. */
  async during<T>(search: () => Promise<T>): Promise<T> {
    Atomics.add(this.inFlight, 0, 1);
    try {
      return await search();
    } finally {
      Atomics.store(this.lastEnd, 0, BigInt(Date.now()));
      Atomics.sub(this.inFlight, 0, 1);
      Atomics.notify(this.inFlight, 0);
    }
  }

  /** Milliseconds since the last search ended; 0 while one is in flight. */
  idleFor(): number {
    return Atomics.load(this.inFlight, 0) > 0 ? 0 : Date.now() - Number(Atomics.load(this.lastEnd, 0));
  }

  /** Resolves once no search has run for QUIET_MS, or after MAX_WAIT_MS at most. */
  async quiet(): Promise<void> {
    const deadline = Date.now() + MAX_WAIT_MS;
    for (let now = Date.now(); now < deadline; now = Date.now()) {
      const running = Atomics.load(this.inFlight, 0);
      if (running > 0) {
        const wait = Atomics.waitAsync(this.inFlight, 0, running, deadline - now);
        if (wait.async) await wait.value;
        continue;
      }
      const quietFor = now - Number(Atomics.load(this.lastEnd, 0));
      if (quietFor >= QUIET_MS) return;
      await new Promise((resolve) => setTimeout(resolve, Math.min(QUIET_MS - quietFor, deadline - now)));
    }
  }
}

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

/** The containers searched lately that are remembered, most recent first (refinement takes theirs first). */
export const RECENT_CONTAINERS = 16;
/** Bytes a remembered container id may take: longer ids (none Engram makes) are not remembered. */
const ID_BYTES = 63;
/**
 * Shared words: searches in flight (Int32 at 0), when the last one ended (BigInt64 at 8, epoch ms),
 * the recent containers' version (Int32 at 16: odd while the HTTP thread rewrites them) and count
 * (Int32 at 20), then each container id as a length byte and its UTF-8.
 */
const RECENT_AT = 24;
const BYTES = RECENT_AT + RECENT_CONTAINERS * (1 + ID_BYTES);

export class SearchActivity {
  readonly buffer: SharedArrayBuffer;
  private readonly inFlight: Int32Array;
  private readonly lastEnd: BigInt64Array;
  private readonly recent: Int32Array;
  private readonly ids: Uint8Array;
  /** The writer's copy of the recent containers (only the HTTP thread records searches). */
  private written: string[] = [];

  /** A new record, or (on another thread) the one whose `buffer` was passed over. */
  constructor(buffer = new SharedArrayBuffer(BYTES)) {
    this.buffer = buffer;
    this.inFlight = new Int32Array(buffer, 0, 1);
    this.lastEnd = new BigInt64Array(buffer, 8, 1);
    this.recent = new Int32Array(buffer, 16, 2);
    this.ids = new Uint8Array(buffer, RECENT_AT);
  }

  /** Runs a search, recorded as in flight until it settles, and its containers as the most recent searched. */
  async during<T>(search: () => Promise<T>, containerIds: readonly string[] = []): Promise<T> {
    this.remember(containerIds);
    Atomics.add(this.inFlight, 0, 1);
    try {
      return await search();
    } finally {
      Atomics.store(this.lastEnd, 0, BigInt(Date.now()));
      Atomics.sub(this.inFlight, 0, 1);
      Atomics.notify(this.inFlight, 0);
    }
  }

  /** The containers searched lately, most recent first, as the HTTP thread last recorded them. */
  recentContainers(): string[] {
    for (;;) {
      const version = Atomics.load(this.recent, 0);
      if (version % 2) continue; // being rewritten: read again
      const ids: string[] = [];
      const count = Math.min(RECENT_CONTAINERS, Atomics.load(this.recent, 1));
      for (let i = 0, at = 0; i < count; i++, at += 1 + ID_BYTES)
        ids.push(new TextDecoder().decode(this.ids.slice(at + 1, at + 1 + this.ids[at]!)));
      if (Atomics.load(this.recent, 0) === version) return ids;
    }
  }

  /** Moves the containers to the front of the recent ones; rewrites the shared copy only when that changes it. */
  private remember(containerIds: readonly string[]): void {
    const kept = containerIds.filter((id) => Buffer.byteLength(id) <= ID_BYTES).slice(0, RECENT_CONTAINERS);
    if (kept.length === 0 || kept.every((id, i) => this.written[i] === id)) return;
    const next = [...kept, ...this.written.filter((id) => !kept.includes(id))].slice(0, RECENT_CONTAINERS);
    this.written = next;
    Atomics.add(this.recent, 0, 1);
    next.forEach((id, i) => {
      const at = i * (1 + ID_BYTES);
      const { written } = new TextEncoder().encodeInto(id, this.ids.subarray(at + 1, at + 1 + ID_BYTES));
      this.ids[at] = written;
    });
    Atomics.store(this.recent, 1, next.length);
    Atomics.add(this.recent, 0, 1);
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

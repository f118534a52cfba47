/**
 * Collects a busy thread's young garbage every INTERVAL_MS, sooner than JavaScriptCore would. JSC
 * lets a heap grow in proportion to what it holds before collecting it, and the HTTP thread holds
 * the search indexes (~190 MiB of its heap at 100k passages), so under a flood of writes tens of MiB
 * of garbage piled up between its own collections, and the learning thread's beside it: the peak
 * memory of 16 clients adding documents went from ~375 MiB at rest to 550–590 MiB
 * (docs/performance.md). A young collection takes ~1 ms, after the work, not in its way; a thread
 * that has done nothing since its last one is left alone.
 */
const INTERVAL_MS = 50;
let pending: Timer | null = null;

/** Asks for a young collection of this thread's heap within INTERVAL_MS, after work that made garbage. */
export function collectYoungGarbageSoon(): void {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    Bun.gc(false);
  }, INTERVAL_MS);
  pending.unref();
}

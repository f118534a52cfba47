/**
 * Asks for a small garbage collection of a busy thread's heap soon after its work, sooner than
 * JavaScriptCore would collect on its own. JSC lets a heap grow in proportion to what it holds before
 * collecting it, and the HTTP thread holds the search indexes (~190 MiB of its heap at 100k passages),
 * so under a flood of writes tens of MiB of garbage piled up between its own collections, and the
 * learning thread's beside it: the peak memory of 16 clients adding documents went from ~375 MiB at
 * rest to 550–590 MiB (docs/performance.md). A small collection (JSC's young generation only,
 * `Bun.gc(false)`) takes ~1 ms, after the work, not in its way; a thread that has done nothing since
 * its last one is left alone.
 */
const INTERVAL_MS = 50;
let pending: Timer | null = null;

/**
 * Asks for a small collection of this thread's heap within INTERVAL_MS, after work that made
 * garbage; once however often asked.
 */
export function collectGarbageSoon(): void {
  if (pending) return;
  pending = setTimeout(() => {
    pending = null;
    Bun.gc(false);
  }, INTERVAL_MS);
  pending.unref();
}

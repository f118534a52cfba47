/**
 * A Hamming scan split between the searching thread and a helper thread (the query embedder's,
 * idle once it has sent the query's vector): the strong tier's scan runs after its vector arrives,
 * on the critical path of every search, and two cores do it in a little over half the time.
 *
 * The index's WebAssembly memory is shared; a job is the scan's arguments in a small shared block
 * of 32-bit words, and its chunks in a shared table: ranges of positions (every slot, or an
 * inverted file's lists, inverted-lists.ts) cut into chunks of at most CHUNK slots, each with where
 * its distances go. The searching thread opens the job and wakes the helper, and both take chunks
 * from a shared counter until none is left; the helper counts its distances into a histogram
 * of its own, which the searching thread adds to its own once the helper has left. A helper that
 * is busy (embedding the next query) or gone joins nothing: the searching thread scans every chunk
 * itself, so a job never waits on the helper to start. Jobs run only inside a synchronous call on
 * the searching thread, so the index cannot change under a helper.
 */
/** Slots a chunk: ~40 µs of scanning, so that a helper joining late still takes a fair share. */
const CHUNK = 8192;
/** Below this many slots a scan is left to one thread: waking the helper costs more than it saves. */
export const SHARED_SCAN_MIN = 4 * CHUNK;
/** Chunks a job may have (an inverted file's 4,096 lists and a whole scan of 100 million slots); a scan of more is one thread's. */
const MAX_CHUNKS = 16_384;
/** How long the searching thread waits for a helper to finish its chunk before it gives up on it. */
const HELPER_TIMEOUT_MS = 100;

/** Words of the control block. */
const SEQ = 0; // bumped when a job opens: what a waiting helper wakes on
const GATE = 1; // OPEN while helpers may join, plus the number of helpers inside
const NEXT = 2; // the next chunk to take
const CHUNKS = 3;
const HELPED = 4; // chunks helpers have scanned, ever
const ARGS = 5; // codes, vecs, query, groups, wanted, dist, helper's histogram, unreachable
const WORDS = ARGS + 8;
const OPEN = 1 << 16;
const INSIDE = OPEN - 1;

/** What a helper thread needs: the compiled scan, the index's memory, the jobs' control block and chunk table. */
export interface ScanShare {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  control: SharedArrayBuffer;
  chunks: SharedArrayBuffer;
}

/** Where the scan's inputs and outputs are in the memory (byte offsets), and the distance of an unwanted slot. */
export interface ScanArgs {
  codes: number;
  vecs: number;
  query: number;
  groups: number;
  wanted: number;
  dist: number;
  hist: number;
  helperHist: number;
  unreachable: number;
}

type ScanFn = (
  codes: number,
  count: number,
  vecs: number,
  query: number,
  groups: number,
  wanted: number,
  dist: number,
  hist: number,
  unreachable: number,
) => void;

/**
 * Scans chunks of the open job while any is left to take, counting distances into `hist`; returns
 * how many it took. A chunk is three words of `chunks`: its first position, its slots, and the
 * place of its first distance.
 */
function takeChunks(control: Int32Array, chunks: Int32Array, scan: ScanFn, hist: number): number {
  const [codes, vecs, query, groups, wanted, dist, , unreachable] = control.subarray(ARGS, WORDS);
  const stride = vecs! * 16;
  let taken = 0;
  for (let c = Atomics.add(control, NEXT, 1); c < control[CHUNKS]!; c = Atomics.add(control, NEXT, 1), taken++) {
    const [first, count, out] = chunks.subarray(c * 3, c * 3 + 3);
    scan(
      codes! + first! * stride,
      count!,
      vecs!,
      query!,
      groups! + first! * 4,
      wanted!,
      dist! + out! * 2,
      hist,
      unreachable!,
    );
  }
  return taken;
}

/** The searching thread's side: one per index, whose scans a helper may join. */
export class SharedScanJobs {
  readonly control = new Int32Array(new SharedArrayBuffer(WORDS * 4));
  readonly chunks = new Int32Array(new SharedArrayBuffer(MAX_CHUNKS * 3 * 4));
  /** Set once a helper is lent and cleared if one ever fails to finish: then every scan is this thread's alone. */
  helped = false;

  /** Chunks helpers have scanned so far. */
  get helperChunks(): number {
    return Atomics.load(this.control, HELPED);
  }

  /**
   * Scans the slots of `ranges` (start, end, start, end, … positions) one after the other, as
   * `scan` would range by range, the i-th slot scanned getting the i-th distance, with a helper
   * when one is lent: the same distances, and the same histogram in `histogram` once the helper's
   * (`helperHistogram`, at `helperHist` in the memory; cleared here) is added in.
   */
  scan(scan: ScanFn, ranges: Uint32Array, args: ScanArgs, histogram: Uint32Array, helperHistogram: Uint32Array): void {
    const { codes, vecs, query, groups, wanted, dist, hist, helperHist, unreachable } = args;
    const alone = () => {
      for (let r = 0, n = 0; r < ranges.length; r += 2) {
        const [start, end] = [ranges[r]!, ranges[r + 1]!];
        scan(
          codes + start * vecs * 16,
          end - start,
          vecs,
          query,
          groups + start * 4,
          wanted,
          dist + n * 2,
          hist,
          unreachable,
        );
        n += end - start;
      }
    };
    const chunks = this.helped ? this.cut(ranges) : 0;
    if (chunks === 0) {
      alone();
      return;
    }
    const c = this.control;
    helperHistogram.fill(0);
    c[CHUNKS] = chunks;
    c.set([codes, vecs, query, groups, wanted, dist, helperHist, unreachable], ARGS);
    Atomics.store(c, NEXT, 0);
    Atomics.store(c, GATE, OPEN);
    Atomics.add(c, SEQ, 1);
    Atomics.notify(c, SEQ);
    takeChunks(c, this.chunks, scan, hist);
    // Closed: no helper joins from here on; wait for the ones inside to finish their chunks.
    const inside = Atomics.and(c, GATE, INSIDE) & INSIDE;
    if (inside && !this.waitForHelpers()) {
      // A helper that does not finish (its thread died mid-chunk) is never asked again, and the
      // whole scan is done again here: the same distances, and a histogram of this thread's own.
      this.helped = false;
      histogram.fill(0);
      alone();
      return;
    }
    for (let i = 0; i < histogram.length; i++) histogram[i]! += helperHistogram[i]!;
  }

  /**
   * Cuts `ranges` into the chunk table; returns how many chunks, or 0 when the scan is one
   * thread's: too few slots to be worth waking the helper, or more chunks than the table holds.
   */
  private cut(ranges: Uint32Array): number {
    let slots = 0;
    for (let r = 0; r < ranges.length; r += 2) slots += ranges[r + 1]! - ranges[r]!;
    if (slots < SHARED_SCAN_MIN) return 0;
    let chunks = 0;
    for (let r = 0, n = 0; r < ranges.length; r += 2) {
      for (let first = ranges[r]!; first < ranges[r + 1]!; first += CHUNK, chunks++) {
        if (chunks === MAX_CHUNKS) return 0;
        const count = Math.min(CHUNK, ranges[r + 1]! - first);
        this.chunks.set([first, count, n], chunks * 3);
        n += count;
      }
    }
    return chunks;
  }

  private waitForHelpers(): boolean {
    const deadline = performance.now() + HELPER_TIMEOUT_MS;
    for (let v = Atomics.load(this.control, GATE); v & INSIDE; v = Atomics.load(this.control, GATE)) {
      const left = deadline - performance.now();
      if (left <= 0) return false;
      Atomics.wait(this.control, GATE, v, left);
    }
    return true;
  }
}

/**
 * The helper's side, on its own thread: joins every job the searching thread opens while this
 * thread is idle, for as long as the thread lives. Waits without blocking its other messages.
 */
export async function helpWithScans(share: ScanShare): Promise<void> {
  const scan = new WebAssembly.Instance(share.module, { env: { memory: share.memory } }).exports.scan as ScanFn;
  const c = new Int32Array(share.control);
  const chunks = new Int32Array(share.chunks);
  for (let seen = Atomics.load(c, SEQ); ; seen = Atomics.load(c, SEQ)) {
    const wait = Atomics.waitAsync(c, SEQ, seen);
    if (wait.async) await wait.value;
    // Join only an open job: once closed, its arguments may be rewritten for the next one.
    for (let v = Atomics.load(c, GATE); v & OPEN; v = Atomics.load(c, GATE)) {
      if (Atomics.compareExchange(c, GATE, v, v + 1) !== v) continue;
      Atomics.add(c, HELPED, takeChunks(c, chunks, scan, c[ARGS + 6]!));
      Atomics.sub(c, GATE, 1);
      Atomics.notify(c, GATE);
      break;
    }
  }
}

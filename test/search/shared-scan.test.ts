/**
 * A tier's scan shared with a helper thread (src/search/shared-scan.ts): the same distances and
 * histogram as one thread makes, with the helper really taking chunks, for both tiers' indexes
 * from one helper (the query thread helps both); and a helper that never finishes its part is
 * given up on, with the scan still whole.
 */
import { afterEach, describe, expect, it } from 'bun:test';
import { Worker } from 'node:worker_threads';
import { seeded } from '../../bench/lib/corpus';
import { HammingScan } from '../../src/search/hamming-scan';
import { SHARED_SCAN_MIN } from '../../src/search/shared-scan';

const BITS = 384;
const SLOTS = 20 * SHARED_SCAN_MIN;

/** An index of random codes in 50 groups, some slots removed, and what one thread's scan of it gives. */
function filled(bits = BITS): {
  scan: HammingScan;
  wanted: Uint8Array;
  distances: Uint16Array<ArrayBuffer>;
  histogram: Uint32Array<ArrayBuffer>;
} {
  const scan = new HammingScan(bits, 1024);
  scan.reserve(SLOTS, 50);
  const random = seeded(7);
  for (let i = 0; i < SLOTS * scan.words; i++) scan.codes[i] = (random() * 2 ** 32) >>> 0;
  for (let s = 0; s < SLOTS; s++) scan.groups[s] = s % 11 === 0 ? -1 : s % 50;
  scan.setQuery(new Uint32Array(scan.words).map(() => (random() * 2 ** 32) >>> 0));
  const wanted = new Uint8Array(50).map((_, g) => (g % 4 === 0 ? 0 : 1));
  scan.scan(SLOTS, wanted, bits + 1);
  return { scan, wanted, distances: scan.distances.slice(0, SLOTS), histogram: scan.histogram.slice() };
}

const workers: Worker[] = [];
async function lend(scan: HammingScan, mode: 'help' | 'stuck', to?: Worker): Promise<Worker> {
  const worker = to ?? new Worker(new URL('./fixtures/scan-helper.ts', import.meta.url));
  if (!to) workers.push(worker);
  const ready = new Promise((resolve) => worker.once('message', resolve));
  worker.postMessage({ share: scan.share(), mode });
  if (mode === 'help') await ready;
  else await Bun.sleep(100); // it is waiting for the next job
  return worker;
}

describe('a scan shared with a helper thread', () => {
  afterEach(async () => {
    await Promise.all(workers.splice(0).map((w) => w.terminate()));
  });

  // Every slot, as a whole scan reads them; and lists of ~1,000 slots scattered over the index, a
  // long one and the tail, as a search through an inverted file's lists reads them.
  it.each([
    ['every slot', Uint32Array.of(0, SLOTS)],
    [
      "an inverted file's lists",
      Uint32Array.of(5, 1_100, 40_000, 41_000, 9_000, 9_700, 100_000, 160_000, SLOTS - 3_000, SLOTS),
    ],
  ])('gives %s the distances and histogram one thread gives, the helper taking chunks', async (_, ranges) => {
    const { scan, wanted } = filled();
    scan.scanRanges(ranges, wanted, BITS + 1);
    const read = ranges.reduce((n, v, i) => n + (i % 2 ? v : -v), 0);
    const distances = scan.distances.slice(0, read);
    const histogram = scan.histogram.slice();
    await lend(scan, 'help');
    // The helper wakes within microseconds; a few scans make sure it has had its turn.
    for (let i = 0; i < 20 && scan.jobs.helperChunks === 0; i++) {
      scan.distances.fill(0, 0, read);
      scan.scanRanges(ranges, wanted, BITS + 1);
      expect(scan.distances.slice(0, read)).toEqual(distances);
      expect(scan.histogram).toEqual(histogram);
      await Bun.sleep(5);
    }
    expect(scan.jobs.helperChunks).toBeGreaterThan(0);
    expect(scan.jobs.helped).toBe(true);
  });

  it('is helped by one thread in the scans of both tiers, each giving what one thread gives', async () => {
    const tiers = [256, BITS].map((bits) => ({ bits, ...filled(bits) }));
    const helper = await lend(tiers[0]!.scan, 'help');
    await lend(tiers[1]!.scan, 'help', helper);
    for (let i = 0; i < 20 && tiers.some((t) => t.scan.jobs.helperChunks === 0); i++) {
      for (const { bits, scan, wanted, distances, histogram } of tiers) {
        scan.distances.fill(0, 0, SLOTS);
        scan.scan(SLOTS, wanted, bits + 1);
        expect(scan.distances.slice(0, SLOTS)).toEqual(distances);
        expect(scan.histogram).toEqual(histogram);
      }
      await Bun.sleep(5);
    }
    for (const { scan } of tiers) expect(scan.jobs.helperChunks).toBeGreaterThan(0);
  });

  it('gives up on a helper that never finishes, and still scans every slot', async () => {
    const { scan, wanted, distances, histogram } = filled();
    await lend(scan, 'stuck');
    // The helper joins the first job it wakes to while it is open: on a busy machine this thread
    // may have taken every chunk and closed the job first, so scans go on until it is caught inside.
    let gaveUpAfter = 0;
    for (let i = 0; i < 100 && scan.jobs.helped; i++) {
      scan.distances.fill(0, 0, SLOTS);
      const started = performance.now();
      scan.scan(SLOTS, wanted, BITS + 1);
      gaveUpAfter = performance.now() - started;
      expect(scan.distances.slice(0, SLOTS)).toEqual(distances);
      expect(scan.histogram).toEqual(histogram);
      if (scan.jobs.helped) await Bun.sleep(5);
    }
    expect(scan.jobs.helped).toBe(false);
    expect(gaveUpAfter).toBeGreaterThanOrEqual(90);
    // From then on the scan is this thread's alone: it opens no job (the first word of the control,
    // bumped by each job opened, stays) and so has no helper to wait for. Not timed: under load a
    // scan of its own can take longer than any bound.
    const jobsOpened = Atomics.load(scan.jobs.control, 0);
    scan.scan(SLOTS, wanted, BITS + 1);
    expect(Atomics.load(scan.jobs.control, 0)).toBe(jobsOpened);
    expect(scan.histogram).toEqual(histogram);
  });
});

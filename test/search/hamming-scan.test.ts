/** The WebAssembly Hamming scan: built from its source, and equal to a plain popcount loop. */
import { describe, expect, it } from 'bun:test';
import { compileHammingWat, wasmModuleSource } from '../../scripts/build-wasm';
import { HammingScan } from '../../src/search/hamming-scan';
import { seededRandom } from '../helpers/seeded';

function popcount(x: number): number {
  let n = 0;
  for (; x; x &= x - 1) n++;
  return n;
}

describe('the Hamming scan', () => {
  it('is built from hamming.wat as committed', async () => {
    const committed = await Bun.file(new URL('../../src/search/hamming-wasm.ts', import.meta.url)).text();
    expect(committed).toBe(wasmModuleSource(await compileHammingWat()));
  });

  it('gives every slot its distance, unreachable for removed or unwanted groups, and their histogram', () => {
    // One to four 128-bit steps take the straight-line path; 640 and 4,100 bits (over 31 steps) the loop.
    for (const bits of [26, 256, 384, 500, 640, 4100]) {
      const scan = new HammingScan(bits, 16);
      const slots = 5000;
      // Growing from 16 slots and 64 groups moves the regions: what was stored must survive it.
      scan.reserve(slots, 100);
      const random = seededRandom(bits);
      const used = Math.ceil(bits / 32);
      const codes = new Uint32Array(slots * used).map(() => (random() * 2 ** 32) >>> 0);
      for (let s = 0; s < slots; s++) {
        for (let w = 0; w < used; w++) scan.codes[s * scan.words + w] = codes[s * used + w]!;
        scan.groups[s] = s % 7 === 0 ? -1 : s % 100;
      }
      scan.reserve(slots * 2, 200);
      const query = new Uint32Array(used).map(() => (random() * 2 ** 32) >>> 0);
      const wanted = new Uint8Array(100).map((_, g) => (g % 3 === 0 ? 1 : 0));
      scan.setQuery(query);
      scan.scan(slots, wanted, bits + 1);
      const histogram = new Uint32Array(bits + 2);
      for (let s = 0; s < slots; s++) {
        const g = s % 7 === 0 ? -1 : s % 100;
        if (g < 0 || g % 3 !== 0) {
          expect(scan.distances[s]).toBe(bits + 1);
          continue;
        }
        let d = 0;
        for (let w = 0; w < used; w++) d += popcount((codes[s * used + w]! ^ query[w]!) >>> 0);
        expect(scan.distances[s]).toBe(d);
        histogram[d]!++;
      }
      expect([...scan.histogram]).toEqual([...histogram]);
    }
  });

  it('selects the slots nearer than the cut-off, and only the first so many at it', () => {
    const bits = 256;
    const scan = new HammingScan(bits, 16);
    const slots = 3001; // not a multiple of the eight distances `select` compares at a time
    scan.reserve(slots, 2);
    const random = seededRandom(7);
    for (let s = 0; s < slots * scan.words; s++) scan.codes[s] = (random() * 2 ** 32) >>> 0;
    // Every slot's group wanted but a few removed ones: those are unreachable and never selected.
    for (let s = 0; s < slots; s++) scan.groups[s] = s % 50 === 0 ? -1 : 0;
    scan.setQuery(new Uint32Array(scan.words).map(() => (random() * 2 ** 32) >>> 0));
    scan.scan(slots, new Uint8Array([1]), bits + 1);
    const distances = [...scan.distances.subarray(0, slots)];
    for (const [cutoff, atCutoff] of [
      [120, 5],
      [128, 0],
      [110, 1000],
      [bits, 10_000],
      [0, 3],
    ] as const) {
      let left = atCutoff;
      const expected = distances.flatMap((d, s) => (d < cutoff || (d === cutoff && left-- > 0) ? [s] : []));
      expect([...scan.select(slots, cutoff, atCutoff, slots)]).toEqual(expected);
    }
    // The last slot alone, past a block of eight: it is still looked at.
    scan.distances.fill(bits + 1, 0, slots - 1);
    scan.distances[slots - 1] = 3;
    expect([...scan.select(slots, 3, 1, 10)]).toEqual([slots - 1]);
  });

  it("has room for the largest search's shortlist from the start: the codes are not laid out anew", () => {
    const scan = new HammingScan(256, 1024);
    scan.reserve(5000, 1);
    const codes = scan.codes;
    scan.distances.fill(3, 0, 5000);
    expect(scan.select(5000, 3, 4000, 4000).length).toBe(4000);
    expect(scan.codes === codes).toBe(true);
  });

  it('encodes a vector as the signs of its Walsh–Hadamard transform, for a slot and for the query', () => {
    const random = seededRandom(11);
    for (const bits of [26, 64, 256, 384, 500]) {
      const scan = new HammingScan(bits, 16);
      const input = Float32Array.from({ length: bits }, () => random() - 0.5);
      // The transform by its definition: output i = Σ_j (−1)^popcount(i & j) · x_j, over the padded length.
      const signs = (vector: Float32Array) => {
        const words = new Uint32Array(scan.words);
        for (let i = 0; i < bits; i++) {
          let sum = 0;
          for (let j = 0; j < vector.length; j++) sum += popcount(i & j) % 2 ? -vector[j]! : vector[j]!;
          if (sum > 0) words[i >>> 5]! |= 1 << (i & 31);
        }
        return [...words];
      };
      scan.staged.fill(0);
      scan.staged.set(input);
      scan.encode(3);
      expect([...scan.codes.subarray(3 * scan.words, 4 * scan.words)]).toEqual(signs(input));
      // The query's code is the same, and a slot coded as the query is at distance 0.
      scan.staged.fill(0);
      scan.staged.set(input);
      scan.encodeQuery();
      scan.groups.fill(0);
      scan.scan(4, new Uint8Array([1]), bits + 1);
      expect(scan.distances[3]).toBe(0);
    }
  });
});

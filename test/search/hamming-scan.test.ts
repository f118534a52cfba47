/** The WebAssembly Hamming scan: built from its source, and equal to a plain popcount loop. */
import { describe, expect, it } from 'bun:test';
import { compileHammingWat, wasmModuleSource } from '../../scripts/build-wasm';
import { HammingScan } from '../../src/search/hamming-scan';

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
    for (const bits of [26, 256, 384]) {
      const scan = new HammingScan(bits, 16);
      const slots = 5000;
      // Growing from 16 slots and 64 groups moves the regions: what was stored must survive it.
      scan.reserve(slots, 100);
      let seed = bits;
      const random = () => {
        seed = (seed * 16807) % 2147483647;
        return seed / 2147483647;
      };
      const used = Math.ceil(bits / 32);
      const codes = new Uint32Array(slots * used).map(() => (random() * 2 ** 32) >>> 0);
      for (let s = 0; s < slots; s++) {
        for (let w = 0; w < used; w++) scan.codes[s * scan.words + w] = codes[s * used + w]!;
        scan.groups[s] = s % 7 === 0 ? -1 : s % 100;
      }
      scan.reserve(slots * 2, 200);
      const query = new Uint32Array(used).map(() => (random() * 2 ** 32) >>> 0);
      const wanted = new Uint8Array(100).map((_, g) => (g % 3 === 0 ? 1 : 0));
      scan.scan(query, slots, wanted, bits + 1);
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
});

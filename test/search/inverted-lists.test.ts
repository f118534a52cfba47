/**
 * A large vector index's inverted lists (inverted-lists.ts): a search reads the nearest lists only,
 * finds nearly what the whole scan finds, follows adds and removals, and survives a save and a
 * restore; a copy saved in the format before the lists is refused (and so rebuilt from the store).
 */
import { describe, expect, it } from 'bun:test';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LISTED_FROM } from '../../src/search/inverted-lists';
import { VectorIndex } from '../../src/search/vector-index';
import { quantize } from '../../src/storage/stored-vector';
import { scratchDir } from '../helpers/scratch';

const dims = 64;
let seed = 7;
const random = () => {
  seed = (seed * 16807) % 2147483647;
  return seed / 2147483647;
};
const gauss = () => Math.sqrt(-2 * Math.log(random() || 1e-12)) * Math.cos(2 * Math.PI * random());
const normal = (v: Float32Array) => {
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
};
// Vectors shaped as models make them: in clusters, sharing a direction, variance falling by dimension.
const shared = Float32Array.from({ length: dims }, gauss);
const falling = (scale: number) => Float32Array.from({ length: dims }, (_, i) => (scale * gauss()) / (1 + i / 8));
const centres = Array.from({ length: 400 }, () => falling(1).map((x, i) => x + 0.5 * shared[i]!));
const member = () => normal(falling(0.4).map((x, i) => x + centres[Math.floor(random() * centres.length)]![i]!));

/** A passage of two units a passage, past the size that has lists, and each passage's units. */
const passages = Math.ceil(LISTED_FROM / 2) + 2000;
const units = Array.from({ length: passages }, () => [member(), member()]);

function built(dir: string): VectorIndex {
  const index = new VectorIndex(dims, join(dir, 'rows'));
  index.reserve(passages * 2);
  for (const [i, u] of units.entries()) index.add(i, 'c', u.map(quantize));
  return index;
}

/** The `k` passages nearest `query` by their best unit, exactly. */
function exact(query: Float32Array, k: number, skip = new Set<number>()): number[] {
  const scored: [number, number][] = [];
  for (const [i, u] of units.entries()) {
    if (skip.has(i)) continue;
    let best = -Infinity;
    for (const v of u) {
      let s = 0;
      for (let d = 0; d < dims; d++) s += v[d]! * query[d]!;
      best = Math.max(best, s);
    }
    scored.push([i, best]);
  }
  return scored
    .sort((a, b) => b[1] - a[1])
    .slice(0, k)
    .map(([i]) => i);
}

const overlap = (a: number[], b: number[]) => a.filter((x) => b.includes(x)).length / b.length;

describe('the inverted lists of a large vector index', () => {
  it('read about a fifth of the codes and find most of what the whole scan finds', async () => {
    const index = built(scratchDir());
    const queries = Array.from({ length: 30 }, member);
    const whole = queries.map((q) => index.search(q, ['c'], 30).map((h) => h.passageId));
    expect(index.lists).toBe(0);
    await index.organize();
    expect(index.lists).toBeGreaterThan(50);
    let kept = 0;
    let listed = 0;
    let truth = 0;
    for (const [i, q] of queries.entries()) {
      const found = index.search(q, ['c'], 30).map((h) => h.passageId);
      expect(index.lastScanned).toBeLessThan(0.3 * index.units);
      kept += overlap(found, whole[i]!);
      const best = exact(q, 30);
      listed += overlap(found, best);
      truth += overlap(whole[i]!, best);
    }
    // 64 dimensions, 64-bit codes: coarser than a model's (bench/vector-recall.ts measures those).
    expect(kept / queries.length).toBeGreaterThanOrEqual(0.85);
    // Against the exact ranking, within a little of the whole scan's own recall.
    expect(listed / queries.length).toBeGreaterThanOrEqual(truth / queries.length - 0.05);
    index.close();
  }, 120_000);

  it('find passages added after the lists were made, and again once filed; forget removed ones, through a compaction', async () => {
    const index = built(scratchDir());
    await index.organize();
    const added = Array.from({ length: 500 }, () => [member()]);
    for (const [i, u] of added.entries()) index.add(passages + i, 'c', u.map(quantize));
    const findsAdded = () => {
      for (const i of [0, 123, 499]) expect(index.search(added[i]![0]!, ['c'], 1)[0]!.passageId).toBe(passages + i);
    };
    findsAdded();
    // More added than filed: the whole index is scanned, the filed codes where their lists put them.
    const more = Array.from({ length: passages + 1000 }, () => [member(), member()]);
    for (const [i, u] of more.entries()) index.add(2 * passages + i, 'c', u.map(quantize));
    expect(index.search(units[77]![0]!, ['c'], 1)[0]!.passageId).toBe(77);
    expect(index.lastScanned).toBe(index.units);
    for (let i = 0; i < more.length; i++) index.remove(2 * passages + i);
    await index.organize();
    findsAdded();
    expect(index.lastScanned).toBeLessThan(0.3 * index.units);
    // Most passages removed: the index closes the holes, its lists follow.
    for (let i = 0; i < passages - 20_000; i++) index.remove(i);
    expect(index.count).toBe(20_500);
    findsAdded();
    for (const i of [passages - 1, passages - 19_999])
      expect(index.search(units[i]![1]!, ['c'], 1)[0]!.passageId).toBe(i);
    expect(index.search(units[5]![0]!, ['c'], 5).map((h) => h.passageId)).not.toContain(5);
    index.close();
  }, 120_000);

  it('are saved and restored with the index, and a copy saved before them is refused', async () => {
    const dir = scratchDir();
    const index = built(dir);
    await index.organize();
    const state = join(dir, 'state');
    index.save(state, 'token');
    const queries = Array.from({ length: 10 }, member);
    const before = queries.map((q) => index.search(q, ['c'], 10));
    const lists = index.lists;
    index.close();
    const restored = VectorIndex.restore(dims, join(dir, 'rows'), state, 'token')!;
    expect(restored.lists).toBe(lists);
    expect(queries.map((q) => restored.search(q, ['c'], 10))).toEqual(before);
    restored.close();
    // The same state stamped with the format before the lists (1) is not read as if it had them.
    const bytes = readFileSync(state);
    const text = bytes.toString('latin1');
    writeFileSync(state, Buffer.from(text.replace('"format":2', '"format":1'), 'latin1'));
    expect(readFileSync(state).equals(bytes)).toBe(false);
    expect(VectorIndex.restore(dims, join(dir, 'rows'), state, 'token')).toBeNull();
  }, 120_000);
});

/**
 * A large vector index's inverted lists (inverted-lists.ts): a search reads the nearest lists only,
 * finds nearly what the whole scan finds, follows adds and removals, and survives a save and a
 * restore; a copy saved in the format before the lists is read without them, and the server files
 * them after its start, answering by the whole scan meanwhile.
 */
import { describe, expect, it } from 'bun:test';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createLogger } from '../../src/log';
import { LISTED_FROM } from '../../src/search/inverted-lists';
import { indexFiles } from '../../src/search/saved-indexes';
import { SearchActivity } from '../../src/search/search-activity';
import { turn } from '../../src/search/store-pages';
import { VectorIndex } from '../../src/search/vector-index';
import { VectorIndexes } from '../../src/search/vector-indexes';
import { VECTOR_SNAPSHOT_SETTING } from '../../src/storage/settings';
import { openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';
import { quantize } from '../../src/storage/stored-vector';
import { scratchDir } from '../helpers/scratch';
import { gaussian, seededRandom } from '../helpers/seeded';

const dims = 64;
const random = seededRandom(7);
const gauss = gaussian(random);
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

function built(dir: string, rows = join(dir, 'rows')): VectorIndex {
  const index = new VectorIndex(dims, rows);
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
  it('read a fraction of the codes and find about as much of the exact nearest as the whole scan', async () => {
    const index = built(scratchDir());
    const queries = Array.from({ length: 30 }, member);
    const whole = queries.map((q) => index.search(q, ['c'], 30).map((h) => h.passageId));
    expect(index.inverted.state.k).toBe(0);
    await index.organize();
    expect(index.inverted.state.k).toBeGreaterThan(50);
    // Just past LISTED_FROM, the least a search reads would be most of the codes.
    index.inverted.probedLeast = 0;
    let listed = 0;
    let truth = 0;
    for (const [i, q] of queries.entries()) {
      const found = index.search(q, ['c'], 30).map((h) => h.passageId);
      expect(index.inverted.lastScanned).toBeLessThan(0.25 * index.units);
      const best = exact(q, 30);
      listed += overlap(found, best);
      truth += overlap(whole[i]!, best);
    }
    // Against the exact ranking, within a little of the whole scan's own recall (64-bit codes,
    // coarser than a model's: 0.353 against 0.354).
    expect(listed / queries.length).toBeGreaterThanOrEqual(truth / queries.length - 0.03);
    index.close();
  }, 120_000);

  it('find passages added after the lists were made, and again once filed; forget removed ones, through a compaction', async () => {
    const index = built(scratchDir());
    await index.organize();
    index.inverted.probedLeast = 0;
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
    expect(index.inverted.lastScanned).toBe(index.units);
    for (let i = 0; i < more.length; i++) index.remove(2 * passages + i);
    await index.organize();
    findsAdded();
    expect(index.inverted.lastScanned).toBeLessThan(0.45 * index.units);
    // Most passages removed: the index closes the holes, its lists follow.
    for (let i = 0; i < passages - 20_000; i++) index.remove(i);
    expect(index.count).toBe(20_500);
    findsAdded();
    for (const i of [passages - 1, passages - 19_999])
      expect(index.search(units[i]![1]!, ['c'], 1)[0]!.passageId).toBe(i);
    expect(index.search(units[5]![0]!, ['c'], 5).map((h) => h.passageId)).not.toContain(5);
    index.close();
  }, 120_000);

  it('are saved and restored with the index', async () => {
    const dir = scratchDir();
    const index = built(dir);
    await index.organize();
    const state = join(dir, 'state');
    index.save(state, 'token');
    const queries = Array.from({ length: 10 }, member);
    const before = queries.map((q) => index.search(q, ['c'], 10));
    const lists = index.inverted.state.k;
    index.close();
    const restored = VectorIndex.restore(dims, join(dir, 'rows'), state, 'token')!;
    expect(restored.inverted.state.k).toBe(lists);
    expect(queries.map((q) => restored.search(q, ['c'], 10))).toEqual(before);
    restored.close();
  }, 120_000);

  it('are filed after a start from a copy saved before them, searches answering meanwhile as by the whole scan', async () => {
    const dir = scratchDir();
    const files = indexFiles(dir, 'fast');
    mkdirSync(dirname(files.state), { recursive: true });
    const index = built(dir, files.rows);
    const queries = Array.from({ length: 20 }, member);
    const whole = queries.map((q) => index.search(q, ['c'], 30));
    // Saved as the release before the lists saved it: format 1 (its lists, none, are not read).
    index.save(files.state, 'token');
    index.close();
    const text = readFileSync(files.state).toString('latin1');
    writeFileSync(files.state, Buffer.from(text.replace('"format":2', '"format":1'), 'latin1'));
    const store = openSqliteStore(openDatabase(dir, Date.now()));
    await store.settings.set(VECTOR_SNAPSHOT_SETTING, 'token');
    const lines: string[] = [];
    const log = createLogger('info', (line) => lines.push(line));
    const indexes = await VectorIndexes.open(store, log, { fast: dims, strong: null }, dir, new SearchActivity());
    try {
      let filed = false;
      void indexes.listsFiled().then(() => (filed = true));
      let during = 0;
      for (let i = 0; !filed; i++, during++) {
        expect(indexes.nearest('fast', queries[i % 20]!, ['c'], 30)).toEqual(whole[i % 20]!);
        await turn();
      }
      expect(during).toBeGreaterThan(20);
      const said = lines.map((l) => JSON.parse(l)).find((l) => l.msg === 'search indexes filed in lists');
      expect(said.fast).toBeGreaterThan(50);
      // Through the lists now: at least the whole scan's recall of the exact nearest.
      let listed = 0;
      let truth = 0;
      for (const [i, q] of queries.entries()) {
        const ids = (hits: { passageId: number }[]) => hits.map((h) => h.passageId);
        const best = exact(q, 30);
        listed += overlap(ids(indexes.nearest('fast', q, ['c'], 30)), best);
        truth += overlap(ids(whole[i]!), best);
      }
      expect(listed).toBeGreaterThanOrEqual(truth);
    } finally {
      await indexes.close();
      await store.close();
    }
  }, 120_000);
});

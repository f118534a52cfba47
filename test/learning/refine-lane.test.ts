/**
 * Refinement on more than one thread: lanes (refine-lane.ts) run batches of the session the caller
 * took up, on threads of their own, and the vectors are those the caller alone makes; a lane that
 * died is let go and its batch run by the caller, one that refused a batch is kept; each run still
 * waits for the caller's quiet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadOnnxEmbedder, OnnxEmbedder, type OnnxLane } from '../../src/embedders/onnx-embedder';
import { refineLanes } from '../../src/learning/refine-lane';

let owner: OnnxEmbedder;
/** Texts of many lengths: several batches of like lengths. */
const texts = Array.from(
  { length: 40 },
  (_, i) => `Sentence ${i} about the garden, the river and the ${'very '.repeat(i % 13)}old bridge.`,
);
let alone: Float32Array[];

beforeAll(async () => {
  owner = await loadOnnxEmbedder();
  alone = await owner.embed(texts);
}, 60_000);
afterAll(() => owner.close());

describe('refinement lanes', () => {
  it('give the vectors the calling thread alone gives, with batches run on another thread', async () => {
    const shared = owner.share();
    let ran = 0;
    const lanes = refineLanes(shared, 2).map(
      (lane): OnnxLane => ({
        run: (rows) => {
          ran++;
          return lane.run(rows);
        },
        get dead() {
          return lane.dead;
        },
        close: () => lane.close(),
      }),
    );
    expect(lanes).toHaveLength(1);
    let quiet = 0;
    const taker = await OnnxEmbedder.attach(shared, { lanes: () => lanes, beforeRun: async () => void quiet++ });
    const vectors = await taker.embed(texts);
    taker.close();
    expect(ran).toBeGreaterThan(0);
    expect(quiet).toBeGreaterThan(ran);
    for (const [i, v] of vectors.entries())
      expect(Math.max(...v.map((x, d) => Math.abs(x - alone[i]![d]!)))).toBeLessThan(1e-5);
  }, 60_000);

  it('let a lane that died go, and run its batches on the calling thread', async () => {
    let closed = 0;
    const broken: OnnxLane = {
      run: () => Promise.reject(new Error('the lane died')),
      dead: true,
      close: () => void closed++,
    };
    const taker = await OnnxEmbedder.attach(owner.share(), { lanes: () => [broken] });
    expect(await taker.embed(texts)).toEqual(alone);
    expect(closed).toBe(1);
    // Let go for good: the next call runs everything here. (Compared with the same call on the
    // caller: a batch shares its 8-bit activation scale, so three texts alone batch otherwise.)
    expect(await taker.embed(texts.slice(0, 3))).toEqual(await owner.embed(texts.slice(0, 3)));
    taker.close();
    expect(closed).toBe(1);
  }, 60_000);

  it("keep a lane that refused one batch: the calling thread runs that batch, the lane the next call's", async () => {
    let refused = 0;
    let ran = 0;
    const lane = refineLanes(owner.share(), 2)[0]!;
    const moody: OnnxLane = {
      run: (rows) => {
        if (refused++ === 0) return Promise.reject(new Error('this batch was refused'));
        ran++;
        return lane.run(rows);
      },
      get dead() {
        return lane.dead;
      },
      close: () => lane.close(),
    };
    const taker = await OnnxEmbedder.attach(owner.share(), { lanes: () => [moody] });
    expect(await taker.embed(texts)).toEqual(alone);
    expect(await taker.embed(texts)).toEqual(alone);
    taker.close();
    expect(ran).toBeGreaterThan(0);
  }, 60_000);

  it('are none when refinement runs on one thread', () => {
    expect(refineLanes(owner.share(), 1)).toEqual([]);
  });
});

/**
 * The refiner's work list once it has caught up: the idle loop steps it every second, so a step
 * with nothing to refine must not read every passage again (at 100k passages that took ~0.1 s of
 * CPU a second, forever); passages learned later are still found and refined.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { Refiner } from '../../src/learning/refiner';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import type { Store } from '../../src/storage/store';
import { type Harness, openHarness } from '../helpers/operations';

const embedder = loadStaticEmbedder();

describe('refinement once caught up', () => {
  let h: Harness;
  let store: Store;
  /** The `afterPassageId` of every look at the strong tier's work list. */
  const looks: number[] = [];
  const refined: number[] = [];
  let refiner: Refiner;

  const learn = async (content: string) => {
    await h.run(ops.addDocument, h.owner, { container: h.containers.notes, content });
    await new LearningRunner({
      store,
      clock: h.clock,
      log: createLogger('silent'),
      embedder,
      readUrl: async () => ({ text: '', title: null }),
      onIndexed: () => {},
    }).drain();
  };
  /** Steps until nothing is left; returns the passages each step took. */
  const catchUp = async () => {
    const steps: number[] = [];
    for (let n = await refiner.step(); n > 0; n = await refiner.step()) steps.push(n);
    return steps;
  };

  beforeAll(async () => {
    h = await openHarness(['notes']);
    const real = h.services.store;
    store = {
      ...real,
      passages: {
        ...real.passages,
        listWithoutVectors: (tier, after, limit) => {
          if (tier === 'strong') looks.push(after);
          return real.passages.listWithoutVectors(tier, after, limit);
        },
      },
    };
    for (const content of ['My sister plays the violin.', 'The dentist is on Tuesday.', 'We flew to Lisbon in May.'])
      await learn(content);
    refiner = new Refiner(store, embedder, (ids) => {
      refined.push(...ids);
    });
  });
  afterAll(() => h.close());

  it('refines every passage, then steps without reading the whole list again', async () => {
    expect(await catchUp()).toEqual([2, 1]);
    expect(refined).toHaveLength(3);
    const last = await store.passages.lastId();
    expect(refined.at(-1)).toBe(last);
    // From the start, on along the mark, and one look from the first passage once it runs out.
    expect(looks).toEqual([0, refined[1]!, last, 0]);

    looks.length = 0;
    for (let i = 0; i < 5; i++) expect(await refiner.step()).toBe(0);
    expect(looks).toEqual([last, last, last, last, last]);
  });

  it('still finds passages learned after it caught up, and refines them', async () => {
    const before = await store.passages.lastId();
    await learn('The plumber comes back on Friday morning.');
    const added = await store.passages.lastId();
    expect(added).toBeGreaterThan(before);

    looks.length = 0;
    expect(await catchUp()).toEqual([1]);
    expect(refined.at(-1)).toBe(added);
    expect(await h.services.store.passages.listWithoutVectors('strong', 0, 10)).toEqual([]);
    expect(looks).toEqual([before, added, 0]);
  });

  it('starts a new run at the first passage, and finds nothing left there', async () => {
    looks.length = 0;
    const fresh = new Refiner(store, embedder, () => {});
    expect(await fresh.step()).toBe(0);
    expect(await fresh.step()).toBe(0);
    expect(looks).toEqual([0, await store.passages.lastId()]);
  });
});

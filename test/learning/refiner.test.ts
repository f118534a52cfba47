/**
 * The refiner's work list: taken in the order a person will search (the containers searched lately,
 * then what the person added before what an import brought, newest first), planned once and not
 * again until something changes: the idle loop steps it every second, so a step with nothing to
 * refine must not read every passage again (at 100k passages that took ~0.1 s of CPU a second,
 * forever); passages learned later are still found and refined, and put where they belong.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadStaticEmbedder } from '../../src/embedders/static-embedder';
import { Refiner } from '../../src/learning/refiner';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import type { SqliteStore } from '../../src/storage/sqlite/sqlite-store';
import type { Store } from '../../src/storage/store';
import { type Harness, openHarness } from '../helpers/operations';

const embedder = loadStaticEmbedder();

describe('refinement', () => {
  let h: Harness;
  let store: Store;
  /** Each plan made: the containers put first. */
  const plans: string[][] = [];
  /** And the window of ids each looked through. */
  const windows: { after: number; upTo: number }[] = [];
  /** The texts refined, a step's together (sorted). */
  const refined: string[][] = [];
  let searched: string[] = [];
  let refiner: Refiner;

  const learn = async (container: 'notes' | 'work', content: string) => {
    await h.run(ops.addDocument, h.owner, { container: h.containers[container], content });
    h.clock.advance(1000);
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
    h = await openHarness(['notes', 'work']);
    const real = h.services.store;
    store = {
      ...real,
      passages: {
        ...real.passages,
        listForRefinement: (tier, first, range, limit) => {
          if (tier === 'strong') {
            plans.push(first);
            windows.push(range);
          }
          return real.passages.listForRefinement(tier, first, range, limit);
        },
      },
    };
    await learn('notes', 'My sister plays the violin.');
    await learn('work', 'The quarterly report is due.');
    await learn('notes', 'We flew to Lisbon in May.');
    // Two passages a step, so that three take two steps.
    refiner = new Refiner(
      store,
      embedder,
      async (ids) => {
        refined.push((await real.passages.getTexts(ids)).map((p) => p.content).sort());
      },
      { batch: 2, containersFirst: () => searched },
    );
  });
  afterAll(() => h.close());

  it('refines the newest first, plans once, then steps without reading the whole list again', async () => {
    expect(await catchUp()).toEqual([2, 1]);
    expect(refined).toEqual([
      ['The quarterly report is due.', 'We flew to Lisbon in May.'],
      ['My sister plays the violin.'],
    ]);
    // One plan for the three, and one look once it ran out, which found nothing.
    expect(plans).toEqual([[], []]);
    plans.length = 0;
    for (let i = 0; i < 5; i++) expect(await refiner.step()).toBe(0);
    expect(plans).toEqual([]);
  });

  it('plans again once passages are learned, the containers searched lately first', async () => {
    refined.length = 0;
    plans.length = 0;
    await learn('notes', 'The plumber comes back on Friday morning.');
    await learn('work', 'The budget meeting moved to Monday.');
    await learn('notes', 'The dentist is on Tuesday.');
    searched = [h.containers.work!];
    expect(await catchUp()).toEqual([2, 1]);
    expect(refined).toEqual([
      ['The budget meeting moved to Monday.', 'The dentist is on Tuesday.'],
      ['The plumber comes back on Friday morning.'],
    ]);
    expect(plans).toEqual([searched, searched]);
    expect(await h.services.store.passages.listWithoutVectors('strong', 0, 10)).toEqual([]);
  });

  it('refines all that was learned in one go, even more than a plan holds', async () => {
    // Two a plan: four learned while it was idle are more than the plan after them takes.
    const small = new Refiner(store, embedder, () => {}, { batch: 10, plan: 2 });
    while ((await small.step()) > 0);
    for (const content of [
      'The boiler was serviced.',
      'Ana starts school in September.',
      'We sold the car.',
      'The roof needs new tiles.',
    ])
      await learn('notes', content);
    while ((await small.step()) > 0);
    expect(await h.services.store.passages.listWithoutVectors('strong', 0, 10)).toEqual([]);
  });

  it('starts a new run with a plan, and finds nothing left', async () => {
    plans.length = 0;
    const fresh = new Refiner(store, embedder, () => {});
    expect(await fresh.step()).toBe(0);
    expect(await fresh.step()).toBe(0);
    expect(plans).toEqual([[]]);
  });

  it('plans a window of ids at a time, the newest first, then the ones below it, then only what is stored since', async () => {
    await learn('notes', 'The hedge needs cutting before June.');
    await learn('notes', 'The bins go out on Thursday.');
    const last = await store.passages.lastId();
    // Lost their vectors (as with a new model): the whole store is to refine again.
    await (h.services.store as SqliteStore).withConnection((raw) =>
      raw.run("DELETE FROM passage_vectors WHERE tier = 'strong'"),
    );
    windows.length = 0;
    const taken: number[][] = [];
    const narrow = new Refiner(store, embedder, (ids) => void taken.push(ids), { batch: 10, window: 3 });
    for (let n = await narrow.step(); n > 0; n = await narrow.step());
    // Windows of three ids, from the newest down; each planned, found empty once refined, and left.
    expect(taken.flat().sort((a, b) => a - b)).toEqual(
      (await h.services.store.passages.getTexts(Array.from({ length: last }, (_, i) => i + 1))).map((p) => p.id),
    );
    expect(taken[0]!.every((id) => id > last - 3)).toBe(true);
    expect(windows[0]).toEqual({ after: last - 3, upTo: last });
    expect(windows.at(-1)!.after).toBe(0);
    windows.length = 0;
    expect(await narrow.step()).toBe(0);
    expect(windows).toEqual([]);
    await learn('work', 'The printer needs toner.');
    expect(await narrow.step()).toBe(1);
    expect(windows).toEqual([{ after: last, upTo: last + 1 }]);
  });
});

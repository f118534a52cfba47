/**
 * The operation tier's seam for other engines: a factory given to `useStoreFactory` makes the store
 * of every harness opened after it, so that a preload that starts another engine runs these same
 * tests on it.
 */
import { expect, it } from 'bun:test';
import * as ops from '../../src/operations/index';
import { openHarness, useStoreFactory } from '../helpers/operations';
import type { OpenedStore, StoreFactory } from '../storage/contract/factory';

it("opens every harness after useStoreFactory over that factory's store", async () => {
  const opened: OpenedStore[] = [];
  let engine: StoreFactory | null = null;
  // Wraps whichever engine this run uses (SQLite, or the one a preload chose), and gives it back after.
  const counting: StoreFactory = {
    name: 'counting',
    async open() {
      const store = await engine!.open();
      opened.push(store);
      return store;
    },
  };
  engine = useStoreFactory(counting);
  const h = await openHarness(['Notes']);
  try {
    expect(opened).toHaveLength(1);
    expect(opened[0]!.store).toBe(h.store);
    await h.run(ops.addMemory, h.owner, {
      container: h.containers.Notes,
      content: 'Written through the chosen store.',
    });
    expect((await opened[0]!.store.facts.list(h.owner.accountId)).map((f) => f.content)).toEqual([
      'Written through the chosen store.',
    ]);
  } finally {
    await h.close();
    useStoreFactory(engine);
  }
});

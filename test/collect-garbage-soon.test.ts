/**
 * The small collections of a busy thread (src/collect-garbage-soon.ts): one soon after work however
 * often it asked, another only after more work, none for a thread that did nothing. Each wait is for
 * the collection itself, never a sleep raced against the timer, so a busy machine only slows the test.
 */
import { afterEach, expect, it, spyOn } from 'bun:test';
import { collectGarbageSoon } from '../src/collect-garbage-soon';

const gc = spyOn(Bun, 'gc');
afterEach(() => gc.mockReset());

/** Resolves at the next collection asked of Bun.gc, with the time it came. */
const nextCollection = () =>
  new Promise<number>((resolve) => {
    gc.mockImplementationOnce(() => {
      resolve(performance.now());
      return 0;
    });
  });

it('collects once soon after work, however often asked, and not again while idle', async () => {
  const collected = nextCollection();
  const asked = performance.now();
  for (let i = 0; i < 100; i++) collectGarbageSoon();
  expect(gc).not.toHaveBeenCalled(); // never within the work itself
  // A timer fires no earlier than asked; allow a millisecond of rounding between the two clocks.
  expect((await collected) - asked).toBeGreaterThanOrEqual(49);
  expect(gc.mock.calls).toEqual([[false]]);
  // Idle for several intervals: no work, no collection.
  await Bun.sleep(200);
  expect(gc).toHaveBeenCalledTimes(1);
  const again = nextCollection();
  collectGarbageSoon();
  await again;
  expect(gc.mock.calls).toEqual([[false], [false]]);
});

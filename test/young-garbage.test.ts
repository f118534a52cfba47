/**
 * The young collections of a busy thread (src/young-garbage.ts): one within 50 ms however much work
 * asked for it, another only after more work, none for a thread that did nothing.
 */
import { afterEach, expect, it, spyOn } from 'bun:test';
import { collectYoungGarbageSoon } from '../src/young-garbage';

const gc = spyOn(Bun, 'gc');
afterEach(() => gc.mockClear());

it('collects the young generation once an interval after work, and not while idle', async () => {
  for (let i = 0; i < 100; i++) collectYoungGarbageSoon();
  expect(gc).not.toHaveBeenCalled();
  await Bun.sleep(80);
  expect(gc.mock.calls).toEqual([[false]]);
  await Bun.sleep(120);
  expect(gc).toHaveBeenCalledTimes(1);
  collectYoungGarbageSoon();
  await Bun.sleep(80);
  expect(gc).toHaveBeenCalledTimes(2);
});

/**
 * The record of searches in flight that refinement waits on: it waits while one runs and for a
 * short quiet after, never past its cap, and sees the searches of another thread; and the containers
 * searched lately, which refinement takes first.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { MAX_WAIT_MS, QUIET_MS, RECENT_CONTAINERS, SearchActivity } from '../../src/search/search-activity';

/** A search that runs until `end` is called. */
const held = (activity: SearchActivity) => {
  const { promise, resolve } = Promise.withResolvers<void>();
  const search = activity.during(() => promise);
  return {
    search,
    end: () => {
      resolve();
      return Date.now();
    },
  };
};

/** Resolves with the time `promise` settled. */
const settledAt = (promise: Promise<unknown>) => promise.then(() => Date.now());

describe('SearchActivity', () => {
  it('is quiet at once when no search has run', async () => {
    const t = Date.now();
    await new SearchActivity().quiet();
    expect(Date.now() - t).toBeLessThan(QUIET_MS);
  });

  it('waits while a search runs, and for a quiet moment after it ends', async () => {
    const activity = new SearchActivity();
    const { search, end } = held(activity);
    let quiet = 0;
    const waited = settledAt(activity.quiet()).then((t) => (quiet = t));
    await Bun.sleep(150);
    expect(quiet).toBe(0);
    const ended = end();
    await search;
    expect(await waited).toBeGreaterThanOrEqual(ended + QUIET_MS - 1);
    expect(quiet - ended).toBeLessThan(QUIET_MS + 200);
  });

  it('counts a search that failed as ended, and passes its error on', async () => {
    const activity = new SearchActivity();
    await expect(activity.during(() => Promise.reject(new Error('no such container')))).rejects.toThrow(
      'no such container',
    );
    const t = Date.now();
    await activity.quiet();
    expect(Date.now() - t).toBeLessThan(QUIET_MS + 200);
  });

  it('waits no longer than its cap for a search that never ends', async () => {
    const activity = new SearchActivity();
    const { end } = held(activity);
    const t = Date.now();
    await activity.quiet();
    const waited = Date.now() - t;
    end();
    expect(waited).toBeGreaterThanOrEqual(MAX_WAIT_MS - 1);
    expect(waited).toBeLessThan(MAX_WAIT_MS + 300);
  });

  it('is read by another thread through its shared buffer', async () => {
    const activity = new SearchActivity();
    const worker = new Worker(join(import.meta.dir, 'fixtures', 'quiet-waiter.ts'), { workerData: activity.buffer });
    const reply = () => new Promise<number>((resolve) => worker.once('message', resolve));
    try {
      // Quiet at once while nothing runs: also shows the thread has started.
      worker.postMessage('wait');
      await reply();
      const { search, end } = held(activity);
      worker.postMessage('wait');
      const quiet = reply();
      await Bun.sleep(150);
      const ended = end();
      await search;
      expect(await quiet).toBeGreaterThanOrEqual(ended + QUIET_MS - 1);
    } finally {
      await worker.terminate();
    }
  });

  it('remembers the containers searched lately, most recent first, for a reader on the same buffer', async () => {
    const activity = new SearchActivity();
    const reader = new SearchActivity(activity.buffer);
    expect(reader.recentContainers()).toEqual([]);
    await activity.during(async () => {}, ['ctr_a']);
    await activity.during(async () => {}, ['ctr_b', 'ctr_c']);
    await activity.during(async () => {}, ['ctr_a']);
    expect(reader.recentContainers()).toEqual(['ctr_a', 'ctr_b', 'ctr_c']);
    for (let i = 0; i < 20; i++) await activity.during(async () => {}, [`ctr_${i}`]);
    const recent = reader.recentContainers();
    expect(recent).toHaveLength(RECENT_CONTAINERS);
    expect(recent[0]).toBe('ctr_19');
    expect(recent.at(-1)).toBe(`ctr_${20 - RECENT_CONTAINERS}`);
  });
});

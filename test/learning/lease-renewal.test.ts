/**
 * A learner renews the leases of the jobs it works: a job slower than its lease (a large page, a
 * model's turn) is not claimed by another learner meanwhile; once the learner stops renewing (it
 * died), the job is free when the lease ends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import * as ops from '../../src/operations/index';
import { type Harness, openHarness } from '../helpers/operations';

const LEASE_MS = 600;

describe('a learner working a job longer than its lease', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await openHarness(['notes']);
  });
  afterAll(() => h.close());

  it('keeps it from other learners by renewing the lease while it works', async () => {
    await h.run(ops.addDocument, h.owner, { container: h.containers.notes, url: 'https://example.org/slow' });
    const page = Promise.withResolvers<{ text: string; title: string | null }>();
    const runner = new LearningRunner({
      store: h.services.store,
      clock: h.clock,
      log: createLogger('silent'),
      embedder: null,
      leaseMs: LEASE_MS,
      readUrl: () => page.promise,
      onIndexed: () => {},
    });
    const working = runner.drain();
    // Three leases go by on the clock the claims read, a third of one at a time, each after a
    // renewal's tick of real time (the renewal is a timer, every third of a lease).
    for (let i = 0; i < 9; i++) {
      await Bun.sleep(LEASE_MS / 2);
      h.clock.advance(LEASE_MS / 3);
      expect(await h.services.store.jobs.claim(h.clock.now(), 10, LEASE_MS)).toEqual([]);
    }
    page.resolve({ text: 'A slow page, learned once.', title: null });
    expect(await working).toBe(1);
  });
});

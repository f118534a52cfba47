/**
 * Revocation under load: ENGRAM_REVOCATION_TRIALS trials (default 20), each with
 * ENGRAM_REVOCATION_LOOPS concurrent request loops (default 8) on one key against the in-process
 * server. At a random moment the owner revokes the key or lowers it to read; once that answer has
 * arrived, zero requests sent after it may succeed on the old grant. bench/revocation.ts runs 100
 * trials against a spawned server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { makeContainer, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { type Change, runTrial, type Target, type TrialResult } from '../../../bench/revocation';

const TRIALS = Number(process.env.ENGRAM_REVOCATION_TRIALS ?? 20);
const LOOPS = Number(process.env.ENGRAM_REVOCATION_LOOPS ?? 8);

let server: TestServer;
let target: Target;

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '1000000' } });
  const { token } = await makeOwner(server);
  target = { url: server.url, owner: token, container: await makeContainer(server, token, 'Load') };
});
afterAll(() => server.close());

async function trials(change: Change): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  for (let i = 0; i < TRIALS; i++) results.push(await runTrial(target, change, LOOPS, i));
  const sum = (f: (r: TrialResult) => number) => results.reduce((a, r) => a + f(r), 0);
  console.log(`${change}: ${TRIALS} trials x ${LOOPS} loops, ${sum((r) => r.requests)} requests, ${sum((r) => r.okBefore)} succeeded before the change, ${sum((r) => r.sentAfter)} sent after it, ${sum((r) => r.violations.length)} succeeded on the old grant`);
  return results;
}

describe('a key changed under load by its owner', () => {
  it('revoked (DELETE /v1/exposures/{id}): no request sent after the answer succeeds', async () => {
    const results = await trials('revoke');
    for (const r of results) {
      expect(r.changeStatus).toBe(200);
      expect(r.violations).toEqual([]);
      // The key was in use when revoked, and was still being tried afterwards.
      expect(r.okBefore).toBeGreaterThan(0);
      expect(r.sentAfter).toBeGreaterThanOrEqual(LOOPS);
    }
  }, 120_000);

  it('lowered to read (PATCH /v1/api-keys/{id}): no write sent after the answer succeeds, reads still do', async () => {
    const results = await trials('lower');
    for (const r of results) {
      expect(r.changeStatus).toBe(200);
      expect(r.violations).toEqual([]);
      expect(r.okBefore).toBeGreaterThan(0);
      expect(r.sentAfter).toBeGreaterThanOrEqual(LOOPS);
      if (r.readsAfter > 0) expect(r.readsAfterOk).toBe(r.readsAfter);
    }
  }, 120_000);
});

/**
 * Revocation under load: ENGRAM_REVOCATION_TRIALS trials (default 20) of each change, each with
 * ENGRAM_REVOCATION_LOOPS concurrent request loops (default 8) on one key against the in-process
 * server. At a random moment the owner revokes the key, lowers it to read, takes a container out of
 * its reach or unticks its profile; once that answer has arrived, zero requests sent after it may
 * succeed on the old grant, and what the new grant allows still works. bench/revocation.ts runs
 * 100 trials of each against a spawned server.
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
  target = {
    url: server.url,
    owner: token,
    containers: [await makeContainer(server, token, 'Load'), await makeContainer(server, token, 'Taken away')],
  };
});
afterAll(() => server.close());

async function trials(change: Change): Promise<TrialResult[]> {
  const results: TrialResult[] = [];
  for (let i = 0; i < TRIALS; i++) results.push(await runTrial(target, change, LOOPS, i));
  const sum = (f: (r: TrialResult) => number) => results.reduce((a, r) => a + f(r), 0);
  console.log(
    `${change}: ${TRIALS} trials x ${LOOPS} loops, ${sum((r) => r.requests)} requests, ${sum((r) => r.okBefore)} succeeded before the change, ${sum((r) => r.sentAfter)} sent after it, ${sum((r) => r.violations.length)} succeeded on the old grant`,
  );
  return results;
}

describe('a key changed under load by its owner', () => {
  const cases: [Change, string][] = [
    ['revoke', 'revoked (DELETE /v1/exposures/{id}): no request sent after the answer succeeds'],
    ['lower', 'lowered to read (PATCH /v1/api-keys/{id}): no write sent after the answer succeeds, reads still do'],
    [
      'narrow',
      'a container taken out of reach (PATCH /v1/exposures/{id}/views): no call on it succeeds after the answer, the other container still works',
    ],
    [
      'unprofile',
      'the profile unticked (PATCH /v1/api-keys/{id}): no profile read succeeds after the answer, search still does',
    ],
  ];
  for (const [change, title] of cases) {
    it(title, async () => {
      const results = await trials(change);
      for (const r of results) {
        expect(r.changeStatus).toBe(200);
        expect(r.violations).toEqual([]);
        // The key was in use when changed, and was still being tried afterwards.
        expect(r.okBefore).toBeGreaterThan(0);
        expect(r.sentAfter).toBeGreaterThanOrEqual(LOOPS);
        expect(r.keptAfterOk).toBe(r.keptAfter);
      }
      if (change !== 'revoke') expect(results.reduce((n, r) => n + r.keptAfter, 0)).toBeGreaterThan(0);
    }, 120_000);
  }
});

/**
 * What the contract promises per credential and per account, held across two servers on one
 * PostgreSQL store: the limiter's minute, revocation on the very next call, the owner's session,
 * the Idempotency-Key's memory, and the account's two concurrent turns.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { TurnBudget } from '../../../src/agent/turn-budget';
import { ManualClock } from '../../../src/clock';
import { openPostgresStore, type PostgresStore } from '../../../src/storage/postgres/postgres-store';
import { postgresOrSkip } from '../../helpers/postgres';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const server = postgresOrSkip('the state two servers share on PostgreSQL');

if (server) {
  describe('two servers on one PostgreSQL store', () => {
    let url: string;
    let a: TestServer;
    let b: TestServer;
    let owner: string;
    let container: string;
    beforeAll(async () => {
      url = await server.createDatabase();
      const clock = new ManualClock();
      const env = { ENGRAM_DATABASE_URL: url, ENGRAM_RATE_LIMIT_PER_MIN: '4' };
      a = await startTestServer({ env, clock, learning: false });
      b = await startTestServer({ env, clock, learning: false });
      owner = (await makeOwner(a)).token;
      container = await makeContainer(b, owner, 'Shared'); // the owner's session, made on a, holds on b
    });
    afterAll(async () => {
      await b?.close();
      await a?.close();
    });

    it("counts a credential's minute across both: the fifth call is refused, on either", async () => {
      const { key } = await makeKey(a, owner, { level: 'read', all_views: true });
      for (const s of [a, b, a, b]) expect((await call(s, 'GET', '/v1/containers', key)).status).toBe(200);
      expect((await call(a, 'GET', '/v1/containers', key)).status).toBe(429);
      expect((await call(b, 'GET', '/v1/containers', key)).status).toBe(429);
    });

    it("refuses a key revoked through one server on the other's very next call", async () => {
      const made = await makeKey(a, owner, { level: 'read', all_views: true });
      expect((await call(b, 'GET', '/v1/containers', made.key)).status).toBe(200);
      expect((await call(a, 'DELETE', `/v1/exposures/${made.id}`, owner)).status).toBe(200);
      expect((await call(b, 'GET', '/v1/containers', made.key)).status).toBe(403);
    });

    it('answers a write repeated on the other server with its Idempotency-Key as the first, storing it once', async () => {
      const { key } = await makeKey(a, owner, { level: 'suggest', all_views: true });
      const post = (s: TestServer) =>
        fetch(`${s.url}/v1/documents`, {
          method: 'POST',
          headers: {
            Authorization: `Bearer ${key}`,
            'Content-Type': 'application/json',
            'Idempotency-Key': 'once-only',
          },
          body: JSON.stringify({ container, content: 'Written once, whichever server hears it.' }),
        });
      const first = await post(a);
      const again = await post(b);
      expect(first.status).toBe(202);
      expect(again.status).toBe(202);
      expect((await again.json()).id).toBe((await first.json()).id);
      const accountId = (await a.services.store.accounts.list())[0]!.id;
      expect((await a.services.store.documents.list(accountId, [container], 10, null)).documents.length).toBe(1);
    });

    it('holds an account to two concurrent turns across processes', async () => {
      const stores: PostgresStore[] = [await openPostgresStore(url), await openPostgresStore(url)];
      try {
        const [one, two] = stores.map((s) => new TurnBudget(2, s.limits));
        const release = Promise.withResolvers<void>();
        const held = [one!.run('acc_x', () => release.promise), two!.run('acc_x', () => release.promise)];
        await Bun.sleep(100);
        await expect(one!.run('acc_x', async () => 'third')).rejects.toMatchObject({ code: 'rate_limited' });
        await expect(two!.run('acc_x', async () => 'third')).rejects.toMatchObject({ code: 'rate_limited' });
        expect(await two!.run('acc_other', async () => 'another account')).toBe('another account');
        release.resolve();
        await Promise.all(held);
        expect(await one!.run('acc_x', async () => 'after')).toBe('after');
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    });
  });
}

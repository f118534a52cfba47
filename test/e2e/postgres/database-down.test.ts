/**
 * A shared database that goes down and comes back: /healthz says so (503) and each request gets a
 * retryable 503 in the envelope within seconds, never a hang; once it is back, the same server
 * answers again without a restart.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { ownPostgres, type OwnPostgres } from '../../helpers/postgres';
import { expectError } from '../../helpers/rest';
import { call, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const database = await ownPostgres();

describe.skipIf(!database)('a server whose PostgreSQL store goes down', () => {
  let pg: OwnPostgres;
  let server: TestServer;
  let key: string;
  beforeAll(async () => {
    pg = database!;
    server = await startTestServer({ env: { ENGRAM_DATABASE_URL: pg.url }, learning: false });
    const owner = (await makeOwner(server)).token;
    key = (await makeKey(server, owner, { level: 'read', all_views: true })).key;
  });
  afterAll(async () => {
    await server?.close().catch(() => {});
    pg?.close();
  });

  it('answers 503 at /healthz and a retryable 503 in the envelope to a request, within seconds; and answers again once the database is back', async () => {
    expect((await call(server, 'GET', '/healthz')).body).toEqual({ status: 'ok', database: 'ok' });
    pg.stop();
    const started = performance.now();
    const health = await call(server, 'GET', '/healthz');
    expect(health.status).toBe(503);
    expect(health.body).toEqual({ status: 'unavailable', database: 'unavailable' });
    const refused = await call(server, 'GET', '/v1/containers', key);
    expectError(refused, 503, 'unavailable');
    expect(performance.now() - started).toBeLessThan(12_000);

    pg.resume();
    let back = await call(server, 'GET', '/v1/containers', key);
    for (let i = 0; back.status !== 200 && i < 50; i++) {
      await Bun.sleep(100);
      back = await call(server, 'GET', '/v1/containers', key);
    }
    expect(back.status).toBe(200);
    expect((await call(server, 'GET', '/healthz')).status).toBe(200);
  }, 40_000);
});

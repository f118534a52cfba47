/**
 * Learning progress in `GET /healthz`: the queue's length and the passages stored, totals of the
 * whole server (no account data), and `refined: null` while refinement is off.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

describe('learning progress on /healthz', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('counts queued jobs, then the passages they made, without naming anything of an account', async () => {
    server = await startTestServer({ env: { ENGRAM_EMBEDDER: 'fast' } });
    const owner = (await makeOwner(server)).token;
    const container = await makeContainer(server, owner, 'Notes');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    expect((await call(server, 'GET', '/healthz')).body).toEqual({ status: 'ok', learning: { queue: 0, passages: 0, refined: null } });
    await call(server, 'POST', '/v1/documents', key, { content: 'The boat is moored at the northern pier.' });
    await call(server, 'POST', '/v1/documents', key, { content: 'The spare key hangs in the shed.' });
    expect((await call(server, 'GET', '/healthz')).body.learning).toEqual({ queue: 2, passages: 0, refined: null });
    await server.learning.drain();
    const after = await call(server, 'GET', '/healthz');
    expect(after.body.learning).toEqual({ queue: 0, passages: 2, refined: null });
    expect(JSON.stringify(after.body)).not.toContain(container);
  });
});

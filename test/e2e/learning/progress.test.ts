/**
 * Learning progress in `GET /healthz`: the queue's length and the passages stored, totals of the
 * whole server (no account data), and `refined: null` while refinement is off. Only a credential
 * of this server sees them (a developer key, a consent token, the owner's session as a bearer or
 * the pages' cookie): the counters move when the owner adds or forgets, so anyone else on the
 * network gets the status alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { connect, ownerWithBrowser } from '../../oauth/helpers';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

describe('learning progress on /healthz', () => {
  let server: TestServer;
  let owner: string;
  let key: string;
  let container: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_EMBEDDER: 'fast' } });
    owner = (await makeOwner(server)).token;
    container = await makeContainer(server, owner, 'Notes');
    key = (await makeKey(server, owner, { level: 'suggest', containers: [container] })).key;
  });
  afterAll(() => server.close());

  it('counts queued jobs, then the passages they made, without naming anything of an account', async () => {
    expect((await call(server, 'GET', '/healthz', key)).body).toEqual({
      status: 'ok',
      database: 'ok',
      learning: { queue: 0, passages: 0, refined: null, refining_per_second: null, full_quality_in_seconds: null },
    });
    await call(server, 'POST', '/v1/documents', key, { content: 'The boat is moored at the northern pier.' });
    await call(server, 'POST', '/v1/documents', key, { content: 'The spare key hangs in the shed.' });
    expect((await call(server, 'GET', '/healthz', key)).body.learning).toEqual({
      queue: 2,
      passages: 0,
      refined: null,
      refining_per_second: null,
      full_quality_in_seconds: null,
    });
    await server.learning.drain();
    const after = await call(server, 'GET', '/healthz', key);
    expect(after.body.learning).toMatchObject({ queue: 0, passages: 2, refined: null });
    expect(JSON.stringify(after.body)).not.toContain(container);
  });

  it('tells anyone else only that the server is up: no credential, a bad or revoked one, a share', async () => {
    const revoked = await makeKey(server, owner, { level: 'read', containers: [container] });
    expect((await call(server, 'DELETE', `/v1/exposures/${revoked.id}`, owner)).status).toBe(200);
    const share = (
      await call(server, 'POST', '/v1/shares', owner, { kind: 'agent_share', name: 'Friend', containers: [container] })
    ).body.token;
    for (const [who, token] of [
      ['nobody', null],
      ['a malformed bearer', 'nonsense'],
      ['a forged key', `${key.slice(0, -4)}AAAA`],
      ['a revoked key', revoked.key],
      ['a share', share],
    ] as const) {
      const res = await call(server, 'GET', '/healthz', token);
      expect({ who, status: res.status, body: res.body }).toEqual({
        who,
        status: 200,
        body: { status: 'ok', database: 'ok' },
      });
    }
    // The owner's pages' cookie counts as the owner's session; a cookie that is no session does not.
    const page = (cookie: string) => fetch(`${server.url}/healthz`, { headers: { cookie } }).then((r) => r.json());
    expect(await page(`engram_session=${owner}`)).toMatchObject({ learning: { passages: 2 } });
    expect(await page('engram_session=egs_x_y')).toEqual({ status: 'ok', database: 'ok' });
  });

  it("tells the owner's session and an app's consent token how far learning has got", async () => {
    expect((await call(server, 'GET', '/healthz', owner)).body.learning).toEqual({
      queue: 0,
      passages: 2,
      refined: null,
      refining_per_second: null,
      full_quality_in_seconds: null,
    });
    const app = await ownerWithBrowser(server);
    const { access_token } = await connect(server, app, { containers: [app.containers.work!] });
    expect((await call(server, 'GET', '/healthz', access_token)).body.learning).toEqual({
      queue: 0,
      passages: 2,
      refined: null,
      refining_per_second: null,
      full_quality_in_seconds: null,
    });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

describe('a fresh server', () => {
  let server: TestServer;
  let owner: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = (await makeOwner(server)).token;
  });
  afterAll(() => server.close());

  it('adds a document, learns it and finds it by search', async () => {
    const container = await makeContainer(server, owner, 'Food');
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    const added = await call(server, 'POST', '/v1/documents', key, {
      content: 'She eats oatmeal with blueberries for breakfast.',
    });
    expect(added.status).toBe(202);
    expect(added.body.status).toBe('queued');
    expect((await call(server, 'GET', `/v1/documents/${added.body.id}`, key)).body.learned).toBe(false);
    await server.learning.drain();
    expect((await call(server, 'GET', `/v1/documents/${added.body.id}`, key)).body.learned).toBe(true);
    const found = await call(server, 'POST', '/v1/search', key, { q: 'what is for breakfast?' });
    expect(found.status).toBe(200);
    expect(found.body.results[0].content).toContain('oatmeal');
    expect(found.body.results[0].container_name).toBe('Food');
    expect(found.headers.get('X-Trace-Id')).toMatch(/^tr_/);
  });
});

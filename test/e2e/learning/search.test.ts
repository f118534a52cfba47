/** Search over learned passages: several containers, reach, a failing container, FTS5 syntax as text, the profile. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

describe('search', () => {
  let server: TestServer;
  let owner: string;
  let food: string;
  let travel: string;
  let secret: string;
  let key: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = (await makeOwner(server)).token;
    food = await makeContainer(server, owner, 'Food');
    travel = await makeContainer(server, owner, 'Travel');
    secret = await makeContainer(server, owner, 'Secret');
    const all = (await makeKey(server, owner, { level: 'manage', all_views: true, profile: true })).key;
    await call(server, 'POST', '/v1/documents', all, {
      container: food,
      content: 'Breakfast is oatmeal with blueberries.',
      custom_id: 'b',
    });
    await call(server, 'POST', '/v1/documents', all, {
      container: travel,
      content: 'The flight to Lisbon leaves at 7; breakfast at the airport.',
    });
    await call(server, 'POST', '/v1/documents', all, {
      container: secret,
      content: 'The safe code is hidden; breakfast is never discussed here.',
    });
    await call(server, 'POST', '/v1/memories', all, { container: food, content: 'Allergic to peanuts.' });
    await call(server, 'POST', '/v1/memories', all, { content: 'Lives in Porto.', static: true });
    await server.learning.drain();
    key = (await makeKey(server, owner, { level: 'read', containers: [food, travel], profile: true })).key;
  });
  afterAll(() => server.close());

  it('searches every container in reach with "*", names each hit’s container, and never reaches outside', async () => {
    const res = await call(server, 'POST', '/v1/search', key, { q: 'breakfast', container: '*' });
    expect(res.status).toBe(200);
    expect(new Set(res.body.results.map((r: any) => r.container_name))).toEqual(new Set(['Food', 'Travel']));
    expect(res.body.containers.map((c: any) => c.name).sort()).toEqual(['Food', 'Travel']);
    expect(JSON.stringify(res.body)).not.toContain('safe code');
    const hit = res.body.results.find((r: any) => r.container_name === 'Food');
    expect(hit).toMatchObject({ container: food, custom_id: 'b', position: 0 });
    expect(typeof hit.score).toBe('number');
    expect(hit.document_id).toMatch(/^doc_/);
  });

  it('finds facts saved with add_memory as passages of their own', async () => {
    const res = await call(server, 'POST', '/v1/search', key, { q: 'peanuts', container: food });
    expect(res.body.results[0]).toMatchObject({ content: 'Allergic to peanuts.', document_id: null });
    expect(res.body.results[0].memory_id).toMatch(/^mem_/);
  });

  it('reports every container searched in containers[].error when keyword search failed, not as an empty memory', async () => {
    const store = server.services.store;
    const original = store.passages.search;
    store.passages.search = async (accountId, containerIds, q, limit) => {
      if (containerIds.includes(travel)) throw new Error('disk I/O error');
      return original(accountId, containerIds, q, limit);
    };
    try {
      const res = await call(server, 'POST', '/v1/search', key, { q: 'breakfast', container: '*' });
      expect(res.status).toBe(200);
      expect(res.body.containers.length).toBeGreaterThan(1);
      for (const entry of res.body.containers)
        expect(entry.error).toEqual({ code: 'internal', message: 'Searching this container failed.' });
      expect(res.body.results).toEqual([]);
      // A search that leaves the failing container out answers as usual.
      const alone = await call(server, 'POST', '/v1/search', key, { q: 'breakfast', container: food });
      expect(alone.body.containers[0].error).toBeUndefined();
      expect(alone.body.results.length).toBeGreaterThan(0);
      expect(JSON.stringify(res.body)).not.toContain('disk I/O');
    } finally {
      store.passages.search = original;
    }
  });

  for (const q of [
    '"unbalanced',
    'breakfast*',
    'NEAR(breakfast oatmeal)',
    'content:oatmeal',
    'a AND OR NOT b',
    '-oatmeal',
    '^breakfast',
    "'; DROP TABLE passages; --",
    '(((',
    '*',
  ]) {
    it(`searches ${JSON.stringify(q)} as text, never as FTS5 syntax`, async () => {
      const res = await call(server, 'POST', '/v1/search', key, { q, container: food });
      expect(res.status).toBe(200);
      expect(res.body.containers[0].error).toBeUndefined();
    });
  }

  it('gives the profile its static facts, recent dynamic facts in reach, and passages for a topic', async () => {
    const bare = await call(server, 'GET', '/v1/profile', key);
    expect(bare.body.static.map((f: any) => f.content)).toEqual(['Lives in Porto.']);
    expect(bare.body.dynamic.map((f: any) => f.content)).toEqual(['Allergic to peanuts.']);
    expect(bare.body.results).toBeUndefined();
    const topic = await call(server, 'GET', '/v1/profile?q=breakfast', key);
    expect(topic.body.results.length).toBeGreaterThan(0);
    expect(topic.body.results.every((r: any) => [food, travel].includes(r.container))).toBe(true);
  });
});

/**
 * What the owner sees of a key's use (per day, per tool, refusals, the last twenty calls) and the
 * per-credential limiter (ENGRAM_RATE_LIMIT_PER_MIN), which never answers search or add with 429.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { DAY_MS, expectError, listedKey, makeAccount, type TestAccount } from '../../helpers/rest';

describe('usage of a key', () => {
  let server: TestServer;
  let account: TestAccount;
  beforeAll(async () => {
    server = await startTestServer();
    account = await makeAccount(server, ['Food']);
  });
  afterAll(() => server.close());

  it('records every call per tool with its refusals; shows per_day, per_tool, refused and the last twenty, newest first', async () => {
    const { id, key } = await makeKey(server, account.owner, { level: 'read', containers: [account.containers.Food] });
    // Day one: 10 list_containers, 5 searches, 3 refused adds (above the level).
    const made: Array<{ tool: string; at: number }> = [];
    const step = async (tool: string, method: string, path: string, body?: unknown) => {
      server.clock.advance(1000);
      made.push({ tool, at: server.clock.now() });
      return call(server, method, path, key, body);
    };
    for (let i = 0; i < 10; i++) expect((await step('list_containers', 'GET', '/v1/containers')).status).toBe(200);
    for (let i = 0; i < 5; i++)
      expect((await step('search_memories', 'POST', '/v1/search', { q: `soup ${i}` })).status).toBe(200);
    for (let i = 0; i < 3; i++)
      expect((await step('add_document', 'POST', '/v1/documents', { content: 'x' })).status).toBe(403);
    // Day two: a 404, a container outside reach, and 5 more list_containers.
    server.clock.advance(DAY_MS);
    expect((await step('get_document', 'GET', '/v1/documents/doc_nope')).status).toBe(404);
    expect((await step('list_documents', 'GET', '/v1/documents?container=ctr_nope')).status).toBe(403);
    for (let i = 0; i < 5; i++) expect((await step('list_containers', 'GET', '/v1/containers')).status).toBe(200);
    expect(made).toHaveLength(25);

    const usage = await call(server, 'GET', `/v1/api-keys/${id}/usage`, account.owner);
    expect(usage.status).toBe(200);
    expect(usage.body.key_id).toBe(id);
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    expect(usage.body.per_day).toEqual([
      { day: day(made[0]!.at), calls: 18, refused: 3 },
      { day: day(made[24]!.at), calls: 7, refused: 1 },
    ]);
    expect(usage.body.refused).toBe(4);
    expect(usage.body.per_tool).toEqual([
      { tool: 'list_containers', calls: 15, refused: 0 },
      { tool: 'search_memories', calls: 5, refused: 0 },
      { tool: 'add_document', calls: 3, refused: 3 },
      { tool: 'get_document', calls: 1, refused: 0 },
      { tool: 'list_documents', calls: 1, refused: 1 },
    ]);
    expect(usage.body.recent).toHaveLength(20);
    const newestFirst = made.toReversed().slice(0, 20);
    expect(usage.body.recent.map((r: any) => [r.tool, r.at])).toEqual(
      newestFirst.map((m) => [m.tool, new Date(m.at).toISOString()]),
    );
    expect(usage.body.recent.slice(5, 7)).toEqual([
      { at: new Date(made[19]!.at).toISOString(), tool: 'list_documents', outcome: 'refused', status: 403 },
      { at: new Date(made[18]!.at).toISOString(), tool: 'get_document', outcome: 'error', status: 404 },
    ]);
    expect((await listedKey(server, account.owner, id))?.key.last_used_at).toBe(new Date(made[24]!.at).toISOString());
  });

  it("does not count the owner's calls, nor calls with another key", async () => {
    const mine = await makeKey(server, account.owner, { level: 'read', all_views: true });
    const other = await makeKey(server, account.owner, { level: 'read', all_views: true });
    await call(server, 'GET', '/v1/containers', account.owner);
    await call(server, 'GET', '/v1/containers', other.key);
    await call(server, 'GET', '/v1/containers', mine.key);
    const usage = (await call(server, 'GET', `/v1/api-keys/${mine.id}/usage`, account.owner)).body;
    expect(usage.per_tool).toEqual([{ tool: 'list_containers', calls: 1, refused: 0 }]);
    expect(usage.recent).toHaveLength(1);
  });

  it('records a call whose body does not parse as an error of that tool', async () => {
    const { id, key } = await makeKey(server, account.owner, {
      level: 'suggest',
      containers: [account.containers.Food],
    });
    expectError(await call(server, 'POST', '/v1/documents', key, '{"content": '), 422, 'validation');
    const usage = (await call(server, 'GET', `/v1/api-keys/${id}/usage`, account.owner)).body;
    expect(usage.recent).toEqual([
      { at: new Date(server.clock.now()).toISOString(), tool: 'add_document', outcome: 'error', status: 422 },
    ]);
  });

  it('a key never used shows empty usage', async () => {
    const { id } = await makeKey(server, account.owner, { level: 'read' });
    expect((await call(server, 'GET', `/v1/api-keys/${id}/usage`, account.owner)).body).toEqual({
      key_id: id,
      per_day: [],
      refused: 0,
      per_tool: [],
      recent: [],
    });
  });
});

describe('the per-credential limiter (ENGRAM_RATE_LIMIT_PER_MIN=5)', () => {
  let server: TestServer;
  let account: TestAccount;
  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '5' } });
    account = await makeAccount(server, ['Food']);
  });
  afterAll(() => server.close());

  it('answers the 6th list_containers in a minute 429 rate_limited with details.limit_per_min and no Retry-After', async () => {
    const { id, key } = await makeKey(server, account.owner, {
      level: 'suggest',
      containers: [account.containers.Food],
    });
    for (let i = 0; i < 5; i++) expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
    const limited = await call(server, 'GET', '/v1/containers', key);
    expectError(limited, 429, 'rate_limited');
    expect(limited.body.details).toEqual({ limit_per_min: 5 });
    expect(limited.body.retryable).toBe(true);
    expect(limited.headers.get('Retry-After')).toBeNull();
    // Other tools share the same budget.
    expectError(await call(server, 'GET', '/v1/rules', key), 429, 'rate_limited');
    const usage = (await call(server, 'GET', `/v1/api-keys/${id}/usage`, account.owner)).body;
    expect(usage.recent[0]).toMatchObject({ tool: 'memory_rules', outcome: 'refused', status: 429 });
    expect(usage.refused).toBe(2);
  });

  it('never answers search or add 429, even past the limit', async () => {
    const { key } = await makeKey(server, account.owner, { level: 'suggest', containers: [account.containers.Food] });
    for (let i = 0; i < 6; i++) await call(server, 'GET', '/v1/containers', key);
    expectError(await call(server, 'GET', '/v1/containers', key), 429, 'rate_limited');
    for (let i = 0; i < 10; i++) {
      expect((await call(server, 'POST', '/v1/search', key, { q: `soup ${i}` })).status).toBe(200);
      expect((await call(server, 'POST', '/v1/documents', key, { content: `Soup number ${i}.` })).status).toBe(202);
    }
  });

  it('searches and adds do not spend the budget of the other tools', async () => {
    const { key } = await makeKey(server, account.owner, { level: 'suggest', containers: [account.containers.Food] });
    for (let i = 0; i < 20; i++) {
      expect((await call(server, 'POST', '/v1/search', key, { q: 'soup' })).status).toBe(200);
      expect((await call(server, 'POST', '/v1/documents', key, { content: `Budget soup ${i}.` })).status).toBe(202);
    }
    for (let i = 0; i < 5; i++) expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
    expectError(await call(server, 'GET', '/v1/containers', key), 429, 'rate_limited');
  });

  it('limits each credential on its own', async () => {
    const first = await makeKey(server, account.owner, { level: 'read', all_views: true });
    const second = await makeKey(server, account.owner, { level: 'read', all_views: true });
    for (let i = 0; i < 5; i++) await call(server, 'GET', '/v1/containers', first.key);
    expectError(await call(server, 'GET', '/v1/containers', first.key), 429, 'rate_limited');
    expect((await call(server, 'GET', '/v1/containers', second.key)).status).toBe(200);
  });

  it('frees the credential once a minute has passed on the clock', async () => {
    const { key } = await makeKey(server, account.owner, { level: 'read', all_views: true });
    for (let i = 0; i < 5; i++) await call(server, 'GET', '/v1/containers', key);
    server.clock.advance(30_000);
    expectError(await call(server, 'GET', '/v1/containers', key), 429, 'rate_limited');
    server.clock.advance(30_000);
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
  });
});

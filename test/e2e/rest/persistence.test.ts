/**
 * Everything acknowledged survives a restart on the same data directory: containers, documents
 * with their learned state (and queued ones still queued), facts, keys (the same token works),
 * revocations, rules, usage and the owner's session. One server holds a data directory at a time.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';
import { addDocument, addMemory, expectError, makeAccount, type TestAccount } from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;
let key: { id: string; key: string };
let revoked: { id: string; key: string };
let learned: string;
let queued: string;
let fact: string;
const before: Record<string, any> = {};

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food', 'Travel']);
  key = await makeKey(server, account.owner, { level: 'manage', all_views: true, profile: true, expires_in_days: 90 });
  revoked = await makeKey(server, account.owner, { level: 'read', all_views: true });
  await call(server, 'DELETE', `/v1/exposures/${revoked.id}`, account.owner);
  learned = await addDocument(server, key.key, {
    container: account.containers.Food,
    title: 'Soup',
    content: 'Lentil soup with cumin on cold days.',
    custom_id: 'soup',
  });
  await server.learning.drain();
  server.clock.advance(1000);
  queued = await addDocument(server, key.key, {
    container: account.containers.Travel,
    content: 'Train to Lyon in March.',
  });
  fact = await addMemory(server, key.key, { container: account.containers.Food, content: 'Dislikes coriander.' });
  await addMemory(server, key.key, { static: true, content: 'Is a night owl.' });
  await call(server, 'POST', '/v1/rules', account.owner, { text: 'Account-wide rule.' });
  await call(server, 'POST', '/v1/rules', account.owner, { text: 'Rule of the key.', credential_id: key.id });

  await call(server, 'GET', '/v1/containers', key.key);
  before.usage = (await call(server, 'GET', `/v1/api-keys/${key.id}/usage`, account.owner)).body;
  // These calls are recorded after the usage was last read: stopping must write them.
  for (let i = 0; i < 3; i++) await call(server, 'GET', '/v1/containers', key.key);
  before.containers = (await call(server, 'GET', '/v1/containers', key.key)).body;
  before.keys = (await call(server, 'GET', '/v1/api-keys', account.owner)).body;
  before.rules = (await call(server, 'GET', '/v1/rules', key.key)).body;
  before.learned = (await call(server, 'GET', `/v1/documents/${learned}`, key.key)).body;

  server = await server.restart();
});
afterAll(() => server.close());

describe('after a restart on the same data directory', () => {
  it('the same key token works and lists the same containers', async () => {
    expect((await call(server, 'GET', '/v1/containers', key.key)).body).toEqual(before.containers);
  });

  it("the owner's session still works and the key listing is unchanged", async () => {
    expect((await call(server, 'GET', '/v1/api-keys', account.owner)).body).toEqual(before.keys);
  });

  it('a revoked key stays revoked', async () => {
    const res = await call(server, 'GET', '/v1/containers', revoked.key);
    expectError(res, 403, 'unauthorized');
    expect(res.body.details.reason).toBe('revoked');
  });

  it('a learned document is still learned and searchable', async () => {
    expect((await call(server, 'GET', `/v1/documents/${learned}`, key.key)).body).toEqual(before.learned);
    expect(before.learned.learned).toBe(true);
    const hits = await call(server, 'POST', '/v1/search', key.key, {
      q: 'lentil soup',
      container: account.containers.Food,
    });
    expect(hits.body.results[0].document_id).toBe(learned);
  });

  it('a queued document is still queued, and learning picks it up', async () => {
    expect((await call(server, 'GET', `/v1/documents/${queued}`, key.key)).body.learned).toBe(false);
    expect(await server.learning.drain()).toBeGreaterThanOrEqual(1); // facts queue jobs of their own
    expect((await call(server, 'GET', `/v1/documents/${queued}`, key.key)).body.learned).toBe(true);
    const hits = await call(server, 'POST', '/v1/search', key.key, { q: 'Lyon', container: account.containers.Travel });
    expect(hits.body.results.map((h: any) => h.document_id)).toEqual([queued]);
  });

  it('custom_id is still remembered', async () => {
    const again = await call(server, 'POST', '/v1/documents', key.key, {
      container: account.containers.Food,
      content: 'other',
      custom_id: 'soup',
    });
    expect([again.status, again.body.status, again.body.id]).toEqual([200, 'exists', learned]);
  });

  it('facts are still there: the container fact in search, the static fact in the profile', async () => {
    const hits = await call(server, 'POST', '/v1/search', key.key, {
      q: 'coriander',
      container: account.containers.Food,
    });
    expect(hits.body.results.map((h: any) => h.memory_id)).toEqual([fact]);
    const profile = await call(server, 'GET', '/v1/profile', key.key);
    expect(profile.body.static.map((f: any) => f.content)).toEqual(['Is a night owl.']);
    expect(profile.body.dynamic.map((f: any) => f.id)).toEqual([fact]);
  });

  it('rules are still there', async () => {
    expect((await call(server, 'GET', '/v1/rules', key.key)).body).toEqual(before.rules);
    expect(before.rules.rules.map((r: any) => r.text)).toEqual(['Account-wide rule.', 'Rule of the key.']);
  });

  it('usage recorded before the restart is still counted, even calls not yet read back', async () => {
    const calls = (usage: any) => usage.per_tool.find((t: any) => t.tool === 'list_containers').calls;
    const after = (await call(server, 'GET', `/v1/api-keys/${key.id}/usage`, account.owner)).body;
    expect(calls(before.usage)).toBe(1);
    expect(calls(after)).toBeGreaterThanOrEqual(5);
  });
});

describe('one server per data directory', () => {
  it('a second server on a data directory in use fails with a clear message', async () => {
    await expect(startTestServer({ dataDir: server.dataDir })).rejects.toThrow(
      /Another Engram server is already using/,
    );
    expect((await call(server, 'GET', '/v1/containers', key.key)).status).toBe(200);
  });
});

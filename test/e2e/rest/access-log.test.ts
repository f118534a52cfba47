/**
 * The access log over the real server: what a consent token's search returned (REST and MCP),
 * what a key wrote, nothing for owner calls, refused calls or another account, and pruning after
 * the retention (ENGRAM_ACCESS_LOG_DAYS).
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { DB_FILE } from '../../../src/storage/sqlite/open';
import { connect, mcpCall, type Owner, ownerWithBrowser } from '../../oauth/helpers';
import { addDocument, DAY_MS, expectError, keyFor, makeAccount, type TestAccount } from '../../helpers/rest';
import { call, makeKey, startTestServer, type TestServer } from '../../helpers/server';

/** What a search answer showed, as the log should name it. */
const shown = (results: any[]) =>
  results.map((r) =>
    r.memory_id ? ['fact', r.memory_id, r.container] : ['document', r.document_id, r.container, r.position],
  );
const logged = (items: any[]) =>
  items.map((i) => (i.kind === 'fact' ? ['fact', i.id, i.container] : [i.kind, i.id, i.container, i.position]));

describe('the access log', () => {
  let server: TestServer;
  let a: Owner;
  let b: TestAccount;
  let writerA: { id: string; key: string };
  let app: { access_token: string; clientId: string };

  const appLog = (query = '') =>
    call(server, 'GET', `/v1/connected-apps/${encodeURIComponent(app.clientId)}/access-log${query}`, a.token);
  const keyLog = (owner: string, id: string, query = '') =>
    call(server, 'GET', `/v1/api-keys/${id}/access-log${query}`, owner);
  /** Every entry of the account, straight from the file: what no timeline shows cannot hide here. */
  const rowsOf = async (email: string) => {
    await server.services.accessLog.flush();
    const accountId = (await server.services.store.accounts.getByEmail(email))!.id;
    const db = new Database(join(server.dataDir, DB_FILE), { readonly: true });
    try {
      return db
        .query('SELECT credential_id, operation, items FROM access_log WHERE account_id = ? ORDER BY id')
        .all(accountId) as any[];
    } finally {
      db.close();
    }
  };

  beforeAll(async () => {
    server = await startTestServer();
    a = await ownerWithBrowser(server, ['work', 'health']);
    writerA = await makeKey(server, a.token, { level: 'manage', all_views: true, profile: true });
    for (const text of [
      'Quarterly planning notes: the roadmap review is on Tuesday.',
      'The roadmap lists the search rewrite first.',
      'Review the budget before the roadmap meeting.',
    ]) {
      await addDocument(server, writerA.key, { container: a.containers.work, content: text });
    }
    await addDocument(server, writerA.key, {
      container: a.containers.health,
      content: 'The roadmap of the physiotherapy: knee exercises daily.',
    });
    await server.learning.drain();
    app = await connect(server, a, { containers: [a.containers.work!], profile: true });
    b = await makeAccount(server, ['work']);
    const writerB = await keyFor(server, b.owner, { level: 'manage', all_views: true });
    await addDocument(server, writerB, {
      container: b.containers.work,
      content: 'Account B also has a roadmap document.',
    });
    await server.learning.drain();
  }, 60_000);
  afterAll(() => server.close());

  it("records exactly what a consent token's search returned, over REST and over MCP", async () => {
    const rest = await call(server, 'POST', '/v1/search', app.access_token, { q: 'roadmap' });
    expect(rest.status).toBe(200);
    expect(rest.body.results.length).toBeGreaterThan(1);
    const mcp = await mcpCall(server, app.access_token, 'tools/call', {
      name: 'search_memories',
      arguments: { q: 'budget roadmap', limit: 2 },
    });
    expect(mcp.status).toBe(200);
    const mcpResults = mcp.body.result.structuredContent.results;
    expect(mcpResults.length).toBe(2);

    const log = await appLog();
    expect(log.status).toBe(200);
    const [viaMcp, viaRest] = log.body.entries;
    expect(viaMcp.operation).toBe('search_memories');
    expect(logged(viaMcp.items)).toEqual(shown(mcpResults));
    expect(logged(viaRest.items)).toEqual(shown(rest.body.results));
    for (const e of [viaMcp, viaRest]) {
      expect(e.credential_kind).toBe('consent');
      expect(e.client_id).toBe(app.clientId);
      expect(e.items.every((i: any) => i.action === 'returned')).toBe(true);
    }
    // Ids only: not a word of any passage is in the file.
    expect(JSON.stringify(await rowsOf(a.email))).not.toContain('roadmap');
  });

  it('records the profile entries a profile read returned, and pages newest first', async () => {
    const fact = await call(server, 'POST', '/v1/memories', writerA.key, {
      content: 'Prefers window seats',
      static: true,
    });
    expect(fact.status).toBe(201);
    const profile = await call(server, 'GET', '/v1/profile', app.access_token);
    expect(profile.status).toBe(200);
    const first = (await appLog('?limit=1')).body;
    expect(first.entries).toHaveLength(1);
    expect(first.entries[0].operation).toBe('get_profile');
    // The label is what the id names now, read with the log: the file holds the id alone.
    expect(first.entries[0].items).toContainEqual({
      action: 'returned',
      kind: 'profile',
      id: fact.body.id,
      container: null,
      label: 'Prefers window seats',
    });
    expect(JSON.stringify(await rowsOf(a.email))).not.toContain('window seats');
    const rest = (await appLog(`?cursor=${first.next_cursor}`)).body;
    expect(rest.entries.map((e: any) => e.operation)).toEqual(['search_memories', 'search_memories']);
    expect(rest.next_cursor).toBeNull();
    // The key's own timeline says what it wrote.
    const writes = (await keyLog(a.token, writerA.id)).body.entries;
    expect(writes[0]).toMatchObject({
      operation: 'add_memory',
      credential_kind: 'key',
      items: [{ action: 'written', kind: 'profile', id: fact.body.id }],
    });
    expect(writes.filter((e: any) => e.operation === 'add_document')).toHaveLength(4);
  });

  it('logs no owner call and no refused call, and nothing of one account shows in another', async () => {
    const before = (await rowsOf(a.email)).length;
    expect((await call(server, 'POST', '/v1/search', a.token, { q: 'roadmap', container: '*' })).status).toBe(200);
    expect((await call(server, 'GET', '/v1/profile', a.token)).status).toBe(200);
    expect((await call(server, 'GET', '/v1/containers', a.token)).status).toBe(200);
    expect(await rowsOf(a.email)).toHaveLength(before);

    const reader = await makeKey(server, a.token, { level: 'read', containers: [a.containers.work] });
    expectError(
      await call(server, 'POST', '/v1/memories', reader.key, { content: 'not allowed' }),
      403,
      'unauthorized',
    );
    expectError(
      await call(server, 'POST', '/v1/search', reader.key, { q: 'roadmap', container: a.containers.health }),
      403,
      'unauthorized',
    );
    expectError(await call(server, 'GET', '/v1/profile', app.access_token.slice(0, -2) + 'zz'), 403, 'unauthorized');
    const bDoc = (await rowsOf(b.email)).find((r) => r.operation === 'add_document');
    expectError(
      await call(server, 'GET', `/v1/documents/${JSON.parse(bDoc.items)[0].id}`, reader.key),
      404,
      'not_found',
    );
    expect(await rowsOf(a.email)).toHaveLength(before);
    expect((await keyLog(a.token, reader.id)).body.entries).toEqual([]);

    // B's rows are B's alone; A's timelines are not B's to read.
    const bRows = await rowsOf(b.email);
    expect(bRows.length).toBeGreaterThan(0);
    const aIds = new Set((await rowsOf(a.email)).flatMap((r) => JSON.parse(r.items).map((i: any) => i.id)));
    expect(bRows.flatMap((r) => JSON.parse(r.items).map((i: any) => i.id)).some((id: string) => aIds.has(id))).toBe(
      false,
    );
    expectError(await keyLog(b.owner, writerA.id), 404, 'not_found');
    expectError(
      await call(server, 'GET', `/v1/connected-apps/${encodeURIComponent(app.clientId)}/access-log`, b.owner),
      404,
      'not_found',
    );
    expectError(await call(server, 'GET', `/v1/api-keys/${writerA.id}/access-log`, writerA.key), 403, 'unauthorized');
  });

  it('prunes entries older than ENGRAM_ACCESS_LOG_DAYS in the background', async () => {
    const old = (await rowsOf(a.email)).length;
    server.clock.advance(2 * DAY_MS);
    expect((await call(server, 'GET', '/v1/containers', app.access_token)).status).toBe(200);
    await server.services.accessLog.flush();
    server = await server.restart({ env: { ENGRAM_ACCESS_LOG_DAYS: '1' } });
    // The pruner's first pass runs at start, before the first request.
    const rows = await rowsOf(a.email);
    expect(old).toBeGreaterThan(1);
    expect(rows.map((r) => r.operation)).toEqual(['list_containers']);
    expect((await appLog()).body.entries.map((e: any) => e.operation)).toEqual(['list_containers']);
  });
});

/**
 * The Authentication section on REST: 401 only for a missing bearer, 403 `unauthorized` for a bad
 * one saying which, reach (a container outside it looks exactly like one that does not exist),
 * the level's message, and the profile tick.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { type Answer, call, startTestServer, type TestServer } from '../../helpers/server';
import { DAY_MS, expectError, keyFor, makeAccount, type TestAccount } from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;
let other: TestAccount;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food', 'Travel', 'Health']);
  other = await makeAccount(server, ['Elsewhere']);
  key = await keyFor(server, account.owner, { level: 'manage', containers: [account.containers.Food] });
});
afterAll(() => server.close());

async function raw(path: string, headers: Record<string, string>, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, { ...init, headers });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

describe('a missing bearer', () => {
  it('answers 401 with the envelope when no Authorization header is sent', async () => {
    for (const [method, path] of [
      ['GET', '/v1/containers'],
      ['POST', '/v1/search'],
      ['GET', '/v1/api-keys'],
      ['DELETE', '/v1/session'],
    ]) {
      const res = await raw(path!, {}, { method });
      expectError(res, 401, 'unauthorized');
    }
  });

  it('counts a header of another scheme ("Basic x") as missing: 401', async () => {
    expectError(await raw('/v1/containers', { Authorization: 'Basic x' }), 401, 'unauthorized');
    expectError(await raw('/v1/containers', { Authorization: `Basic ${btoa(`${key}:`)}` }), 401, 'unauthorized');
  });

  it('counts "Bearer" without a credential as missing: 401', async () => {
    expectError(await raw('/v1/containers', { Authorization: 'Bearer' }), 401, 'unauthorized');
    expectError(await raw('/v1/containers', { Authorization: 'Bearer    ' }), 401, 'unauthorized');
  });

  it('accepts the scheme name in any case', async () => {
    expect((await raw('/v1/containers', { Authorization: `bearer ${key}` })).status).toBe(200);
  });
});

describe('a bad bearer is 403 unauthorized, saying which', () => {
  it('refuses unknown tokens as "not known": garbage, a made-up key, a real key id with a wrong secret', async () => {
    const keyId = key.split('_')[1];
    for (const token of ['hello', 'egm_nope_nope', `egm_${keyId}_${'x'.repeat(43)}`, `${key}x`, 'egs_nope_nope']) {
      const res = await call(server, 'GET', '/v1/containers', token);
      expectError(res, 403, 'unauthorized');
      expect(res.body.message).toBe('The credential is not known to this server.');
      expect(res.body.details).toEqual({ reason: 'unknown' });
    }
  });

  it('refuses a revoked key as revoked, on its next call', async () => {
    const minted = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'soon revoked',
      level: 'read',
      all_views: true,
    });
    expect((await call(server, 'GET', '/v1/containers', minted.body.key)).status).toBe(200);
    expect((await call(server, 'DELETE', `/v1/exposures/${minted.body.id}`, account.owner)).status).toBe(200);
    const res = await call(server, 'GET', '/v1/containers', minted.body.key);
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toBe('The credential has been revoked.');
    expect(res.body.details).toEqual({ reason: 'revoked' });
  });

  it('refuses an expired key as expired', async () => {
    const minted = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'short',
      level: 'read',
      all_views: true,
      expires_in_days: 1,
    });
    server.clock.advance(DAY_MS);
    const res = await call(server, 'POST', '/v1/search', minted.body.key, { q: 'anything' });
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toBe('The credential has expired.');
    expect(res.body.details).toEqual({ reason: 'expired' });
  });

  it('never echoes the presented token in the refusal', async () => {
    const token = `egm_abcdefghijkl_${'S'.repeat(43)}`;
    const res = await call(server, 'GET', '/v1/containers', token);
    expect(JSON.stringify(res.body)).not.toContain('SSSSSSSS');
  });
});

describe('reach', () => {
  /** The answer with the container id taken out, so two answers about two ids can be compared. */
  const shape = (res: Answer, id: string) => ({
    status: res.status,
    code: res.body.code,
    message: res.body.message.replaceAll(id, '<id>'),
    details: JSON.parse(JSON.stringify(res.body.details).replaceAll(id, '<id>')),
    retryable: res.body.retryable,
  });

  const REQUESTS: Array<[string, (container: string) => [string, string, unknown?]]> = [
    ['search_memories', (c) => ['POST', '/v1/search', { q: 'soup', container: c }]],
    ['list_documents', (c) => ['GET', `/v1/documents?container=${c}`]],
    ['add_document', (c) => ['POST', '/v1/documents', { container: c, content: 'Soup on Sundays.' }]],
    ['add_memory', (c) => ['POST', '/v1/memories', { container: c, content: 'Soup on Sundays.' }]],
  ];

  for (const [tool, build] of REQUESTS) {
    it(`${tool}: a container outside reach is answered exactly like a nonexistent one (403 unauthorized)`, async () => {
      const missing = 'ctr_0000000000000000';
      const [m0, p0, b0] = build(missing);
      const expected = shape(await call(server, m0, p0, key, b0), missing);
      expect(expected.status).toBe(403);
      expect(expected.code).toBe('unauthorized');
      expect(expected.message).toBe('The container <id> may not be used with this credential.');
      // Another container of the same account, and one of another account: both look the same.
      for (const outside of [account.containers.Travel!, other.containers.Elsewhere!]) {
        const [m, p, b] = build(outside);
        const res = await call(server, m, p, key, b);
        expectError(res, 403, 'unauthorized');
        expect(shape(res, outside)).toEqual(expected);
      }
    });
  }

  it('list_containers lists only the containers in reach', async () => {
    const two = await keyFor(server, account.owner, {
      level: 'read',
      containers: [account.containers.Food, account.containers.Health],
    });
    const res = await call(server, 'GET', '/v1/containers', two);
    expect(res.body.containers.map((c: any) => c.name).sort()).toEqual(['Food', 'Health']);
    const none = await keyFor(server, account.owner, { level: 'read' });
    expect((await call(server, 'GET', '/v1/containers', none)).body).toEqual({ containers: [] });
  });

  it('reach all_views includes containers made after the key', async () => {
    const everything = await keyFor(server, account.owner, { level: 'suggest', all_views: true });
    const before = (await call(server, 'GET', '/v1/containers', everything)).body.containers.map((c: any) => c.name);
    const later = (await call(server, 'POST', '/v1/containers', account.owner, { name: 'Later' })).body.id;
    const after = (await call(server, 'GET', '/v1/containers', everything)).body.containers.map((c: any) => c.name);
    expect(before).not.toContain('Later');
    expect(after).toEqual([...before, 'Later']);
    expect(
      (await call(server, 'POST', '/v1/documents', everything, { container: later, content: 'New topic.' })).status,
    ).toBe(202);
    // A ticked list does not grow.
    expect((await call(server, 'GET', '/v1/containers', key)).body.containers.map((c: any) => c.name)).toEqual([
      'Food',
    ]);
  });
});

describe('level and profile tick', () => {
  it('refuses a verb above the level, saying the tool is not in the capability profile', async () => {
    const read = await keyFor(server, account.owner, { level: 'read', all_views: true });
    const res = await call(server, 'POST', '/v1/documents', read, { container: account.containers.Food, content: 'x' });
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toBe("The tool add_document is not in this credential's capability profile.");
  });

  it('refuses a verb above the level whatever the body: the level is checked before the body is read', async () => {
    const read = await keyFor(server, account.owner, { level: 'read', all_views: true });
    for (const body of ['{"content": ', '[]', JSON.stringify({ content: 7 })]) {
      const res = await call(server, 'POST', '/v1/documents', read, body);
      expectError(res, 403, 'unauthorized');
      expect(res.body.details.tool).toBe('add_document');
    }
  });

  it('refuses get_profile without the profile tick, even at Full access', async () => {
    const res = await call(server, 'GET', '/v1/profile', key);
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toBe("The tool get_profile is not in this credential's capability profile.");
    const ticked = await keyFor(server, account.owner, { level: 'read', profile: true });
    expect((await call(server, 'GET', '/v1/profile', ticked)).status).toBe(200);
  });
});

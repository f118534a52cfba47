/**
 * What the REST door adds to its operations, answered in process (test/helpers/app.ts): the bearer
 * check (401 without one, 403 saying why for a bad one) on every route, 405 with Allow, the status
 * each rule and refusal is answered with, and the envelope with its trace id on every error. What
 * each operation decides is test/operations'; the server started on a port, test/e2e/rest's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { startSession } from '../../src/auth/owner';
import { REST_ROUTES } from '../../src/http/rest';
import * as ops from '../../src/operations/index';
import { type InProcessApp, inProcessApp } from '../helpers/app';
import { type Harness, openHarness } from '../helpers/operations';
import { DAY_MS, expectError, expectMalformed } from '../helpers/rest';
import { type Answer, call } from '../helpers/server';

let h: Harness;
let app: InProcessApp;
/** The owner's session token, a Full access key reaching Notes, and a Read key reaching it too. */
let owner: string;
let manage: string;
let read: string;
let notes: string;

beforeAll(async () => {
  h = await openHarness(['Notes', 'Work']);
  app = inProcessApp(h);
  notes = h.containers.Notes!;
  owner = (await startSession(h.store, h.clock, h.owner.accountId)).token;
  const mint = async (level: string) =>
    (await h.run(ops.createKey, h.owner, { name: level, level, containers: [notes], profile: true })).key as string;
  manage = await mint('manage');
  read = await mint('read');
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const rest = <T = any>(method: string, path: string, token?: string | null, body?: unknown): Promise<Answer<T>> =>
  call<T>(app, method, path, token, body);

/** A request with headers of the test's own. */
async function raw(method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const res = await app.fetch(`${app.url}${path}`, { method, headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, headers: res.headers };
}

/** Each route of the table with its path parameters filled in. */
const ROUTES = REST_ROUTES.map((r) => ({ method: r.method.toUpperCase(), path: r.path.replace(/\{\w+\}/g, 'x1') }));

describe('the bearer, on every route', () => {
  it('answers 401 with the envelope and a Bearer challenge when none is sent, or another scheme, or "Bearer" alone', async () => {
    for (const { method, path } of ROUTES) {
      const missing: Record<string, string>[] = [{}, { Authorization: 'Basic x' }, { Authorization: 'Bearer   ' }];
      for (const headers of missing) {
        const res = await raw(method, path, headers);
        expectError(res, 401, 'unauthorized');
        expect(res.headers.get('WWW-Authenticate')).toBe('Bearer');
      }
    }
  });

  it('answers an unknown credential 403 unauthorized saying so, without echoing it', async () => {
    const token = `egm_abcdefghijkl_${'S'.repeat(43)}`;
    for (const { method, path } of ROUTES) {
      const res = await rest(method, path, token);
      expectError(res, 403, 'unauthorized');
      expect(res.body.details).toEqual({ reason: 'unknown' });
      expect(JSON.stringify(res.body)).not.toContain('SSSSSSSS');
    }
  });

  it('accepts the scheme name in any case', async () => {
    expect((await raw('GET', '/v1/containers', { Authorization: `bearer ${read}` })).status).toBe(200);
  });

  it('refuses a revoked key and an expired one, each saying which', async () => {
    const revoked = await h.run(ops.createKey, h.owner, { name: 'gone', level: 'read', all_views: true });
    expect((await rest('DELETE', `/v1/exposures/${revoked.id}`, owner)).status).toBe(200);
    const gone = await rest('GET', '/v1/containers', revoked.key);
    expectError(gone, 403, 'unauthorized');
    expect(gone.body).toMatchObject({ message: 'The credential has been revoked.', details: { reason: 'revoked' } });

    const short = await h.run(ops.createKey, h.owner, {
      name: 'short',
      level: 'read',
      all_views: true,
      expires_in_days: 1,
    });
    h.clock.advance(DAY_MS);
    const expired = await rest('POST', '/v1/search', short.key, { q: 'anything' });
    expectError(expired, 403, 'unauthorized');
    expect(expired.body).toMatchObject({ message: 'The credential has expired.', details: { reason: 'expired' } });
  });
});

describe('statuses', () => {
  it('answers a success with the status of its route: 201 for a saved fact, 202 for a queued document, 200 for the rest', async () => {
    const fact = await rest('POST', '/v1/memories', manage, { container: notes, content: 'Takes the 8:10 train.' });
    expect(fact.status).toBe(201);
    const doc = await rest('POST', '/v1/documents', manage, {
      container: notes,
      content: 'Train times.',
      custom_id: 't',
    });
    expect({ status: doc.status, state: doc.body.status }).toEqual({ status: 202, state: 'queued' });
    const again = await rest('POST', '/v1/documents', manage, {
      container: notes,
      content: 'Train times.',
      custom_id: 't',
    });
    expect({ status: again.status, state: again.body.status, id: again.body.id }).toEqual({
      status: 200,
      state: 'exists',
      id: doc.body.id,
    });
    expect((await rest('GET', '/v1/containers', read)).status).toBe(200);
    // A destructive call without confirm is a normal answer asking for it, not an error.
    const asked = await rest('DELETE', `/v1/documents/${doc.body.id}`, manage);
    expect({ status: asked.status, state: asked.body.status }).toEqual({ status: 200, state: 'confirmation_required' });
  });

  it('answers a tool above the level 403, whatever the body, and an owner route to a key 403', async () => {
    expectError(await rest('POST', '/v1/memories', read, { container: notes, content: 'x' }), 403, 'unauthorized');
    expectError(await rest('POST', '/v1/memories', read, 'not json'), 403, 'unauthorized');
    expectError(await rest('POST', '/v1/containers', manage, { name: 'Mine' }), 403, 'unauthorized');
    expectError(await rest('GET', '/v1/api-keys', read), 403, 'unauthorized');
  });

  it('answers a broken rule 400 validation, and a body or parameter that does not parse 422 naming the field', async () => {
    const empty = await rest('POST', '/v1/search', read, { q: '  ' });
    expectError(empty, 400, 'validation');
    const both = await rest('POST', '/v1/documents', manage, {
      container: notes,
      content: 'x',
      url: 'https://example.org/',
    });
    expectError(both, 400, 'validation');
    expectMalformed(await rest('POST', '/v1/search', read, 'not json'), '(body)');
    expectMalformed(await rest('POST', '/v1/search', read, [1, 2]), '(body)');
    expectMalformed(await rest('POST', '/v1/search', read, { q: 5 }), 'q');
    expectMalformed(await rest('POST', '/v1/search', read, { q: 'tea', limit: 101 }), 'limit');
    expectMalformed(await rest('GET', '/v1/documents?limit=ten', read), 'limit');
    expectMalformed(await rest('DELETE', '/v1/documents/x1?confirm=yes', manage), 'confirm');
  });

  it('answers an id that does not exist, and a path no route has, 404 not_found', async () => {
    expectError(await rest('GET', '/v1/documents/doc_nope', read), 404, 'not_found');
    expectError(await rest('DELETE', '/v1/memories/mem_nope?confirm=true', manage), 404, 'not_found');
    expectError(await rest('GET', '/v1/nowhere', read), 404, 'not_found');
    expectError(await rest('GET', '/nowhere', null), 404, 'not_found');
  });

  it('answers a method a path does not take 405 with Allow, once the credential is through', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of ROUTES) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method));
    for (const [path, methods] of byPath) {
      const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].sort();
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].filter((m) => !methods.has(m))) {
        const res = await rest(method, path, manage);
        expectError(res, 405, 'method_not_allowed');
        expect({ path, method, allow: res.headers.get('Allow'), listed: res.body.details.allow }).toEqual({
          path,
          method,
          allow: allow.join(', '),
          listed: allow,
        });
      }
    }
  });

  it('answers a name taken 409 conflict, retryable', async () => {
    const res = await rest('POST', '/v1/containers', owner, { name: 'Notes' });
    expectError(res, 409, 'conflict');
  });

  it('answers headers over 16 KiB 431 in the envelope', async () => {
    expectError(
      await raw('GET', '/v1/containers', { Authorization: `Bearer ${read}`, 'X-Big': 'x'.repeat(17_000) }),
      431,
      'validation',
    );
  });

  it('gives every answer a trace id, the same in the header and the envelope, new on each request', async () => {
    const a = await rest('GET', '/v1/documents/doc_nope', read);
    const b = await rest('GET', '/v1/documents/doc_nope', read);
    expect(a.body.trace_id).not.toBe(b.body.trace_id);
    expect((await rest('GET', '/v1/containers', read)).headers.get('X-Trace-Id')).toMatch(/^tr_\w+$/);
  });
});

describe('the per-credential limiter', () => {
  let limited: Harness;
  let limitedApp: InProcessApp;
  beforeAll(async () => {
    limited = await openHarness(['Notes'], undefined, { ENGRAM_RATE_LIMIT_PER_MIN: '3' });
    limitedApp = inProcessApp(limited);
  });
  afterAll(async () => {
    await limitedApp.close();
    await limited.close();
  });

  it('answers the call over the limit 429 rate_limited, retryable, with the limit in details and no Retry-After; searches and adds spend none of it', async () => {
    const { key } = await limited.run(ops.createKey, limited.owner, { name: 'k', level: 'suggest', all_views: true });
    for (let i = 0; i < 5; i++) {
      expect((await call(limitedApp, 'POST', '/v1/search', key, { q: 'soup' })).status).toBe(200);
      expect((await call(limitedApp, 'POST', '/v1/documents', key, { content: `Soup ${i}.` })).status).toBe(202);
    }
    for (let i = 0; i < 3; i++) expect((await call(limitedApp, 'GET', '/v1/containers', key)).status).toBe(200);
    const res = await call(limitedApp, 'GET', '/v1/containers', key);
    expectError(res, 429, 'rate_limited');
    expect(res.body.details.limit_per_min).toBe(3);
    expect(res.headers.get('Retry-After')).toBeNull();
  });
});

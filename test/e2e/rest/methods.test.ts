/**
 * Methods a path does not answer: 405 in the envelope with `Allow`, on every route of the REST
 * table (once the credential is through: a missing or refused one is still 401 or 403, whatever
 * the method) and on the other doors; methods a path does answer are untouched, and CORS
 * preflights still reach their middleware. A method outside Bun's parser's
 * table never reaches the app (oven-sh/bun#6556): the connection is closed unanswered, and the
 * server goes on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { REST_ROUTES } from '../../../src/http/rest';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const TRIED = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'PROPFIND', 'MKCOL', 'LOCK', 'TRACE', 'PURGE'];

describe('methods a path does not answer', () => {
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    server = await startTestServer();
    const owner = (await makeOwner(server)).token;
    await makeContainer(server, owner, 'Notes');
    key = (await makeKey(server, owner, { level: 'manage', all_views: true })).key;
  });
  afterAll(() => server.close());

  it('answers 405 in the envelope with Allow on every REST route; without a credential, or with a refused one, 401 or 403 as before', async () => {
    const byPath = new Map<string, Set<string>>();
    for (const r of REST_ROUTES) byPath.set(r.path, (byPath.get(r.path) ?? new Set()).add(r.method.toUpperCase()));
    let answered = 0;
    for (const [path, methods] of byPath) {
      const concrete = path.replace(/\{\w+\}/g, 'x1');
      const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].sort();
      for (const method of TRIED.filter((m) => !methods.has(m))) {
        const res = await fetch(`${server.url}${concrete}`, { method, headers: { Authorization: `Bearer ${key}` } });
        expect({ method, path, status: res.status, allow: res.headers.get('allow') }).toEqual({
          method,
          path,
          status: 405,
          allow: allow.join(', '),
        });
        if (method !== 'TRACE') {
          // a TRACE answer carries no body through fetch
          const body = await res.json();
          expect({ code: body.code, allow: body.details.allow, trace: body.trace_id }).toEqual({
            code: 'method_not_allowed',
            allow,
            trace: res.headers.get('x-trace-id'),
          });
        }
        answered++;
        for (const [bearer, status] of [
          [null, 401],
          ['egm_unknown_secret', 403],
        ] as const) {
          const refused = await fetch(`${server.url}${concrete}`, {
            method,
            headers: bearer ? { Authorization: `Bearer ${bearer}` } : {},
          });
          expect({ method, path, bearer, status: refused.status }).toEqual({ method, path, bearer, status });
        }
      }
    }
    expect(answered).toBeGreaterThan(150);
  });

  it('answers 405 on the other doors too, and leaves the methods they answer and CORS preflights alone', async () => {
    for (const [method, path] of [
      ['POST', '/healthz'],
      ['PUT', '/containers'],
      ['DELETE', '/sign-in'],
      ['PUT', '/oauth/token'],
      ['PATCH', '/v1/session'],
    ]) {
      const res = await fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${key}` } });
      expect({ method, path, status: res.status, code: (await res.json()).code }).toEqual({
        method,
        path,
        status: 405,
        code: 'method_not_allowed',
      });
    }
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${server.url}/healthz`, { method: 'HEAD' })).status).toBe(200);
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
    // Still 404 where no route has the path at all.
    expect((await call(server, 'GET', '/v1/nothing-here', key)).status).toBe(404);
    const preflight = await fetch(`${server.url}/oauth/register`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
  });

  it("is cut off by Bun before the app for a method outside its parser's table, and the server goes on answering", async () => {
    const { port } = new URL(server.url);
    const received: string[] = [];
    const closed = Promise.withResolvers<void>();
    const socket = await Bun.connect({
      hostname: '127.0.0.1',
      port: Number(port),
      socket: {
        data: (_s, chunk) => void received.push(chunk.toString()),
        close: () => closed.resolve(),
        error: () => closed.resolve(),
      },
    });
    socket.write(`FOO /v1/documents HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    await closed.promise;
    // Bun 1.4 answers nothing (oven-sh/bun#6556). Should it ever answer, it must be a refusal.
    if (received.length) expect(received.join('')).toMatch(/^HTTP\/1\.1 (400|405|501) /);
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
  });
});

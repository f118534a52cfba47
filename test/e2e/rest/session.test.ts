/**
 * The owner's bearer session for scripts: POST /v1/session with email and password gives a token
 * that works on the owner's routes; a wrong password is 403 unauthorized; DELETE signs out.
 * Password guessing is throttled per address across this door and the web sign-in form, and
 * X-Forwarded-For names the address only when it comes from a trusted proxy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { loadConfig } from '../../../src/config';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import { DAY_MS, expectError, expectMalformed, makeAccount, type TestAccount } from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server);
});
afterAll(() => server.close());

const signIn = (email: string, password: string) => call(server, 'POST', '/v1/session', null, { email, password });

describe('POST /v1/session', () => {
  it("gives a session token for the right email and password that works on the owner's routes", async () => {
    const res = await signIn(account.email, account.password);
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^egs_[A-Za-z0-9]+_[A-Za-z0-9]{43}$/);
    expect(res.body.expires_at).toBe(new Date(server.clock.now() + 30 * DAY_MS).toISOString());
    expect(res.headers.get('X-Trace-Id')).toMatch(/^tr_/);
    const made = await call(server, 'POST', '/v1/containers', res.body.token, { name: 'From a script' });
    expect(made.status).toBe(201);
    expect((await call(server, 'GET', '/v1/api-keys', res.body.token)).status).toBe(200);
    expect((await call(server, 'GET', '/v1/containers', account.owner)).body.containers.map((c: any) => c.id)).toEqual([
      made.body.id,
    ]);
  });

  it('refuses a wrong password and an unknown email alike: 403 unauthorized, no token', async () => {
    const wrong = await signIn(account.email, 'not the password');
    const unknown = await signIn('nobody@example.org', account.password);
    for (const res of [wrong, unknown]) {
      expectError(res, 403, 'unauthorized');
      expect(res.body.message).toBe('The email or password is wrong.');
      expect(JSON.stringify(res.body)).not.toContain('egs_');
    }
  });

  it('refuses a malformed sign-in with 422 naming the field', async () => {
    expectMalformed(await call(server, 'POST', '/v1/session', null, { email: account.email }), 'password');
    expectMalformed(await call(server, 'POST', '/v1/session', null, '{"email":'), '(body)');
  });

  it('a session lapses after 30 days: 403 saying it has expired', async () => {
    const { token } = (await signIn(account.email, account.password)).body;
    server.clock.advance(30 * DAY_MS);
    const res = await call(server, 'GET', '/v1/api-keys', token);
    expectError(res, 403, 'unauthorized');
    expect(res.body.details.reason).toBe('expired');
  });
});

describe('DELETE /v1/session', () => {
  it('signs out: the token is refused afterwards, other sessions go on', async () => {
    const first = (await signIn(account.email, account.password)).body.token;
    const second = (await signIn(account.email, account.password)).body.token;
    const res = await call(server, 'DELETE', '/v1/session', first);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'signed_out' });
    const refused = await call(server, 'GET', '/v1/api-keys', first);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.details.reason).toBe('unknown');
    expect((await call(server, 'GET', '/v1/api-keys', second)).status).toBe(200);
  });

  it('without a bearer answers 401', async () => {
    expectError(await call(server, 'DELETE', '/v1/session'), 401, 'unauthorized');
  });
});

describe('the password throttle', () => {
  /** A sign-in through the web form, with its CSRF cookie and token, as a browser sends it. */
  async function webSignIn(on: TestServer, email: string, password: string): Promise<Response> {
    const page = await fetch(`${on.url}/sign-in`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = /name="csrf" value="([^"]+)"/.exec(await page.text())![1]!;
    return fetch(`${on.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email, password }),
    });
  }
  const restSignIn = (on: TestServer, body: unknown, forwardedFor?: string) =>
    fetch(`${on.url}/v1/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) },
      body: JSON.stringify(body),
    }).then(async (res) => ({ status: res.status, body: (await res.json()) as any, headers: res.headers }));

  it('counts POST /v1/session and the web form together: 10 attempts a minute from one address, then 429', async () => {
    const own = await startTestServer();
    try {
      const acc = await makeAccount(own);
      for (let i = 0; i < 5; i++) expect((await webSignIn(own, acc.email, 'wrong password')).status).toBe(401);
      for (let i = 0; i < 5; i++)
        expect((await restSignIn(own, { email: acc.email, password: 'wrong password' })).status).toBe(403);
      // The minute is full: the right password is refused too, by both doors, before it is checked.
      const limited = await restSignIn(own, { email: acc.email, password: acc.password });
      expectError(limited, 429, 'rate_limited');
      expect(limited.body.details.limit_per_min).toBe(10);
      expect(limited.headers.get('retry-after')).toBe('60');
      expect((await webSignIn(own, acc.email, acc.password)).status).toBe(429);
      own.clock.advance(61_000);
      expect((await restSignIn(own, { email: acc.email, password: acc.password })).status).toBe(201);
    } finally {
      await own.close();
    }
  }, 60_000);

  it('keys on the X-Forwarded-For client only when the peer is a trusted proxy (ENGRAM_TRUSTED_PROXIES)', async () => {
    const wrong = { email: 'someone@example.org', password: 'wrong password' };
    const fill = async (on: TestServer, forwardedFor: string) => {
      for (let i = 0; i < 10; i++) expect((await restSignIn(on, wrong, forwardedFor)).status).toBe(403);
      expect((await restSignIn(on, wrong, forwardedFor)).status).toBe(429);
    };
    const behindProxy = await startTestServer({ env: { ENGRAM_TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8' } });
    const direct = await startTestServer();
    try {
      // The right-most entry that is not a trusted proxy is the client; 10.1.2.3 is a second proxy hop.
      await fill(behindProxy, '203.0.113.7, 10.1.2.3');
      expect((await restSignIn(behindProxy, wrong, '203.0.113.8')).status).toBe(403);
      // What the client writes left of its own address changes nothing.
      expect((await restSignIn(behindProxy, wrong, '198.51.100.1, 203.0.113.7')).status).toBe(429);
      // Without the setting the header is the client's to write: ignored, every attempt is the peer's.
      await fill(direct, '203.0.113.7');
      expect((await restSignIn(direct, wrong, '203.0.113.8')).status).toBe(429);
    } finally {
      await behindProxy.close();
      await direct.close();
    }
  }, 120_000);

  it('refuses an ENGRAM_TRUSTED_PROXIES entry that is not an address or network', () => {
    expect(loadConfig({ ENGRAM_TRUSTED_PROXIES: '10.0.0.0/8,fd00::/8,192.0.2.1' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.1',
    ]);
    expect(loadConfig({}).trustedProxies).toEqual([]);
    expect(() => loadConfig({ ENGRAM_TRUSTED_PROXIES: 'proxy.example, 10.0.0.0/33' })).toThrow(
      /"proxy.example".*\n.*"10.0.0.0\/33"/s,
    );
  });
});

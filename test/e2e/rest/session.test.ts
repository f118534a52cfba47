/**
 * The owner's bearer session for scripts: POST /v1/session with email and password gives a token
 * that works on the owner's routes; a wrong password is 403 unauthorized; DELETE signs out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
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
  it('gives a session token for the right email and password that works on the owner\'s routes', async () => {
    const res = await signIn(account.email, account.password);
    expect(res.status).toBe(201);
    expect(res.body.token).toMatch(/^egs_[A-Za-z0-9]+_[A-Za-z0-9]{43}$/);
    expect(res.body.expires_at).toBe(new Date(server.clock.now() + 30 * DAY_MS).toISOString());
    expect(res.headers.get('X-Trace-Id')).toMatch(/^tr_/);
    const made = await call(server, 'POST', '/v1/containers', res.body.token, { name: 'From a script' });
    expect(made.status).toBe(201);
    expect((await call(server, 'GET', '/v1/api-keys', res.body.token)).status).toBe(200);
    expect((await call(server, 'GET', '/v1/containers', account.owner)).body.containers.map((c: any) => c.id)).toEqual([made.body.id]);
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

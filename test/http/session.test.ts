/**
 * The owner's bearer session for scripts, answered in process (test/helpers/app.ts): POST
 * /v1/session with email and password gives a token that works on the owner's routes, a wrong
 * password or email is 403 alike, a malformed sign-in 422, and DELETE signs out. The password
 * throttle and the proxies it trusts are test/e2e/rest/session.test.ts's.
 */
import { afterAll, beforeAll, expect, it } from 'bun:test';
import { type InProcessApp, inProcessApp } from '../helpers/app';
import { type Harness, openHarness } from '../helpers/operations';
import { DAY_MS, expectError, expectMalformed } from '../helpers/rest';
import { call } from '../helpers/server';

// The harness's owner (test/helpers/operations.ts).
const EMAIL = 'owner@example.org';
const PASSWORD = 'correct horse battery staple';

let h: Harness;
let app: InProcessApp;
beforeAll(async () => {
  h = await openHarness([]);
  app = inProcessApp(h);
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const signIn = (email: string, password: string) => call(app, 'POST', '/v1/session', null, { email, password });

it("gives a session token for the right email and password that works on the owner's routes until signed out", async () => {
  const res = await signIn(EMAIL, PASSWORD);
  expect(res.status).toBe(201);
  expect(res.body.token).toMatch(/^egs_[A-Za-z0-9]+_[A-Za-z0-9]{43}$/);
  expect(res.body.expires_at).toBe(new Date(h.clock.now() + 30 * DAY_MS).toISOString());
  expect((await call(app, 'POST', '/v1/containers', res.body.token, { name: 'From a script' })).status).toBe(201);
  expect(await call(app, 'DELETE', '/v1/session', res.body.token)).toMatchObject({
    status: 200,
    body: { status: 'signed_out' },
  });
  const after = await call(app, 'GET', '/v1/api-keys', res.body.token);
  expectError(after, 403, 'unauthorized');
  expect(after.body.details.reason).toBe('unknown');
});

it('refuses a wrong password and an unknown email alike, 403 without a token; a malformed sign-in 422 naming the field', async () => {
  for (const res of [await signIn(EMAIL, 'not the password'), await signIn('nobody@example.org', PASSWORD)]) {
    expectError(res, 403, 'unauthorized');
    expect(res.body.message).toBe('The email or password is wrong.');
    expect(JSON.stringify(res.body)).not.toContain('egs_');
  }
  expectMalformed(await call(app, 'POST', '/v1/session', null, { email: EMAIL }), 'password');
  expectError(await call(app, 'DELETE', '/v1/session'), 401, 'unauthorized');
});

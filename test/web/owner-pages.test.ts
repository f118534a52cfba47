/**
 * The owner's pages over HTTP, without a browser: setup opens only on a new server, pages need the
 * session, form posts need the CSRF token and this site's origin, and the script is served under
 * the CSP. The whole flow in a browser is test/web/owner-app-browser.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { startSession } from '../../src/auth/owner';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1]!;

describe('setup on a new server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close());

  it('sends / and /sign-in to setup while no account exists', async () => {
    expect((await fetch(`${server.url}/`, { redirect: 'manual' })).headers.get('location')).toBe('/setup');
    expect((await fetch(`${server.url}/sign-in`, { redirect: 'manual' })).headers.get('location')).toBe('/setup');
  });

  it('refuses two different passwords and a post without its token, then makes the account once', async () => {
    const page = await fetch(`${server.url}/setup`);
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = csrfOf(await page.text());
    const post = (fields: Record<string, string>) =>
      fetch(`${server.url}/setup`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields),
      });
    const fields = { email: 'me@example.org', password: 'long enough pw', password_again: 'long enough pw' };
    expect((await post(fields)).status).toBe(403);
    expect((await post({ ...fields, csrf, password_again: 'something else' })).status).toBe(400);
    expect((await post({ ...fields, csrf, password: 'short', password_again: 'short' })).status).toBe(400);
    expect(await server.services.store.accounts.count()).toBe(0);
    const made = await post({ ...fields, csrf });
    expect(made.status).toBe(303);
    expect(made.headers.get('location')).toBe('/containers');
    const session = made.headers.getSetCookie().find((c) => c.startsWith('engram_session='))!;
    expect(session).toContain('HttpOnly');
    expect(session).toContain('SameSite=Lax');
    expect(await server.services.store.accounts.count()).toBe(1);
    // Setup is closed now, for a second post too.
    const again = await post({ ...fields, email: 'intruder@example.org', csrf });
    expect(again.headers.get('location')).toBe('/sign-in');
    expect(await server.services.store.accounts.count()).toBe(1);
  });
});

describe('the owner pages', () => {
  let server: TestServer;
  let owner: { token: string };
  let cookie: string;
  let container: string;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await makeOwner(server);
    cookie = `engram_session=${owner.token}`;
    container = await makeContainer(server, owner.token, 'Journal');
  });
  afterAll(() => server.close());

  const get = (path: string, withCookie = true) =>
    fetch(`${server.url}${path}`, { redirect: 'manual', headers: withCookie ? { cookie } : {} });
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(fields),
    });

  it('sends a visitor without a session to sign in, and back afterwards', async () => {
    for (const path of ['/containers', '/keys', `/containers/${container}`, '/profile', '/rules', '/search?q=x']) {
      const res = await get(path, false);
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`/sign-in?${new URLSearchParams({ next: path })}`);
    }
  });

  it('serves every page with the strict CSP, no caching, and the script from /web/', async () => {
    for (const path of [
      '/containers',
      '/keys',
      `/containers/${container}`,
      '/profile',
      '/rules',
      '/search?q=journal',
    ]) {
      const res = await get(path);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
      );
      expect(res.headers.get('cache-control')).toBe('no-store');
      const html = await res.text();
      expect(html).toContain('<script src="/web/engram.js" defer=""></script>');
      expect(html).not.toMatch(/<script>|style="|onclick=/);
    }
    const script = await get('/web/engram.js', false);
    expect(script.headers.get('content-type')).toContain('text/javascript');
    expect(await script.text()).toContain('data-copy');
  });

  it('changes nothing for a post without the CSRF token or from another origin', async () => {
    const { id, key } = await makeKey(server, owner.token, { level: 'read', containers: [container] });
    const csrf = csrfOf(await (await get('/keys')).text());
    expect((await post(`/keys/${id}/revoke`, {})).status).toBe(303);
    expect((await post(`/keys/${id}/revoke`, { csrf }, { origin: 'https://evil.example' })).status).toBe(303);
    expect(
      (await post(`/keys/${id}/revoke`, { csrf: csrf.replace(/.$/, (ch) => (ch === 'A' ? 'B' : 'A')) })).status,
    ).toBe(303);
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(200);
    await post(`/keys/${id}/revoke`, { csrf });
    expect((await call(server, 'GET', '/v1/containers', key)).status).toBe(403);
  });

  it('shows a refusal the owner can fix on the page, not as an error', async () => {
    const csrf = csrfOf(await (await get('/containers')).text());
    const clash = await post('/containers', { csrf, name: 'Journal' });
    expect(clash.headers.get('location')).toBe('/containers');
    const flash = clash.headers.getSetCookie().find((c) => c.startsWith('engram_flash='))!;
    const page = await fetch(`${server.url}/containers`, { headers: { cookie: `${cookie}; ${flash.split(';')[0]}` } });
    expect(await page.text()).toContain('already exists');
    const both = await post(`/containers/${container}/documents`, {
      csrf,
      content: 'a note',
      url: 'https://example.org/',
    });
    expect(both.headers.get('location')).toBe(`/containers/${container}`);
    expect(decodeURIComponent(both.headers.getSetCookie().find((c) => c.startsWith('engram_flash='))!)).toContain(
      'exactly one of content and url',
    );
  });

  it('does not show a key that is not one of the owner’s', async () => {
    const other = await makeOwner(server);
    const { id } = await makeKey(server, other.token, { level: 'read', all_views: true });
    const res = await get(`/keys/${id}`);
    expect(res.headers.get('location')).toBe('/keys');
    const rotate = await (await get(`/keys?from=${id}`)).text();
    expect(rotate).toContain('No key');
  });

  it('refuses the CSRF token of another session', async () => {
    const { store, clock } = server.services;
    const second = await startSession(store, clock, (await store.accounts.list())[0]!.id);
    const theirs = csrfOf(
      await (await fetch(`${server.url}/containers`, { headers: { cookie: `engram_session=${second.token}` } })).text(),
    );
    const mine = csrfOf(await (await get('/containers')).text());
    expect(theirs).not.toBe(mine);
    await post('/containers', { csrf: theirs, name: 'Smuggled' });
    expect(
      (await call(server, 'GET', '/v1/containers', owner.token)).body.containers.map((c: { name: string }) => c.name),
    ).toEqual(['Journal']);
  });

  /** Targets that browsers resolve to another origin, or that are not a path of ours at all. */
  const HOSTILE_TARGETS = [
    '/\t/evil.example/x',
    '/\n/evil.example/x',
    '/\r\n/evil.example',
    '/ /evil.example',
    '/\u00a0/evil.example',
    '/\u3000/evil.example',
    '/\\evil.example',
    '/\\/evil.example',
    '//evil.example',
    '/\u202e/evil.example',
    'https://evil.example/',
    'javascript:alert(1)',
    '\t//evil.example',
    '',
  ];

  it('follows sign-in only to a path of this server: never to one a browser reads as another origin', async () => {
    for (const next of HOSTILE_TARGETS) {
      const res = await get(`/sign-in?${new URLSearchParams({ next })}`);
      expect({ next, location: res.headers.get('location') }).toEqual({ next, location: '/containers' });
    }
    for (const next of ['/keys', '/search?q=a%20b&container=*', '/%09/evil.example/x']) {
      expect((await get(`/sign-in?${new URLSearchParams({ next })}`)).headers.get('location')).toBe(next);
    }
    // The form posts `next` back: the same guard holds there, after a real sign-in.
    const email = 'redirects@example.org';
    await makeOwner(server, email);
    const page = await fetch(`${server.url}/sign-in`);
    const signInCookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const csrf = csrfOf(await page.text());
    const signedIn = await fetch(`${server.url}/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: signInCookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf, email, password: 'correct horse battery staple', next: '/\t/evil.example/x' }),
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe('/containers');
  }, 30_000);

  it('sends the forget page back only to a path of this server', async () => {
    for (const back of HOSTILE_TARGETS) {
      // No such fact: the page goes straight `back`, the redirect the guard must hold.
      const res = await get(`/facts/mem_nope/forget?${new URLSearchParams({ back })}`);
      expect({ back, location: res.headers.get('location') }).toEqual({ back, location: '/profile' });
    }
    expect((await get('/facts/mem_nope/forget?back=%2Fcontainers')).headers.get('location')).toBe('/containers');
  });

  it("signs out only with the session's CSRF token from this site", async () => {
    const { store, clock } = server.services;
    const session = await startSession(store, clock, (await store.accounts.list())[0]!.id);
    const mine = { cookie: `engram_session=${session.token}`, 'content-type': 'application/x-www-form-urlencoded' };
    const signOut = (fields: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${server.url}/sign-out`, {
        method: 'POST',
        redirect: 'manual',
        headers: { ...mine, ...headers },
        body: new URLSearchParams(fields),
      });
    const csrf = csrfOf(await (await fetch(`${server.url}/containers`, { headers: mine })).text());
    for (const refused of [await signOut({}), await signOut({ csrf }, { origin: 'https://evil.example' })]) {
      expect(refused.status).toBe(403);
      expect(refused.headers.getSetCookie().some((c) => c.startsWith('engram_session='))).toBe(false);
    }
    expect((await fetch(`${server.url}/containers`, { redirect: 'manual', headers: mine })).status).toBe(200);
    const done = await signOut({ csrf });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe('/sign-in');
    expect((await fetch(`${server.url}/containers`, { redirect: 'manual', headers: mine })).status).toBe(303);
  });

  it('refuses a container name with a bidi override, as every door does', async () => {
    const csrf = csrfOf(await (await get('/containers')).text());
    const res = await post('/containers', { csrf, name: 'Invo\u202Eseciov' });
    expect(res.headers.get('location')).toBe('/containers');
    expect(decodeURIComponent(res.headers.getSetCookie().find((c) => c.startsWith('engram_flash='))!)).toContain(
      'name: must not contain control or invisible',
    );
    expect(
      (await call(server, 'GET', '/v1/containers', owner.token)).body.containers.map((c: { name: string }) => c.name),
    ).not.toContain('Invo\u202Eseciov');
  });

  // Last: it moves the clock past the owner's session too.
  it('lists an expired key under Expired, with no way to change it', async () => {
    const { id } = await makeKey(server, owner.token, {
      name: 'Short lived',
      level: 'read',
      containers: [container],
      expires_in_days: 30,
    });
    server.clock.advance(31 * 86_400_000);
    const { store, clock } = server.services;
    const fresh = `engram_session=${(await startSession(store, clock, (await store.accounts.list())[0]!.id)).token}`;
    const keys = await (await fetch(`${server.url}/keys`, { headers: { cookie: fresh } })).text();
    const expired = keys.slice(keys.indexOf('id="keys-expired"'), keys.indexOf('id="keys-revoked"'));
    expect(expired).toContain(`data-key-id="${id}"`);
    const page = await (await fetch(`${server.url}/keys/${id}`, { headers: { cookie: fresh } })).text();
    expect(page).toContain('>expired<');
    expect(page).not.toContain('Save changes');
    expect(page).not.toContain('Rotate');
    // The old session ended with its 30 days.
    expect((await get('/keys')).headers.get('location')).toStartWith('/sign-in');
  });
});

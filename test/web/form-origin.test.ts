/**
 * The browser's own word on where a form post came from, as a second wall behind the CSRF token:
 * every owner form (the pages' posts, sign-in, setup, sign-out, the consent screen) refuses a post
 * whose `Sec-Fetch-Site` is `cross-site`, whose Origin is present and not the server's (`null`
 * included), or that has no Origin but a Referer from another origin, even with a valid session and
 * token; a post that says nothing (a script) or says it is ours goes on. Over HTTP, since a browser
 * cannot be made to send these headers at will; test/web/form-origin-browser.test.ts shows what
 * Chromium really sends.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { authorizeQuery, parseForm, pkce, registerClientId } from '../oauth/helpers';
import { call, makeOwner, startTestServer, type TestServer } from '../helpers/server';

const csrfOf = (html: string): string => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
const APP_ORIGIN = 'https://app.example';

/** Header sets a browser sends on a post another page made, each refused. */
const FOREIGN: Record<string, Record<string, string>> = {
  'Origin: null': { Origin: 'null' },
  'Origin: null, Sec-Fetch-Site: same-site': { Origin: 'null', 'Sec-Fetch-Site': 'same-site' },
  'Sec-Fetch-Site: cross-site alone': { 'Sec-Fetch-Site': 'cross-site' },
  'Sec-Fetch-Site: cross-site with our Origin': { 'Sec-Fetch-Site': 'cross-site', Origin: 'OWN' },
  'no Origin, a Referer from another site': { Referer: 'https://evil.example/page' },
  'another port of this host': { Origin: 'http://127.0.0.1:9', 'Sec-Fetch-Site': 'same-site' },
  'an app origin allowed on /mcp-http': { Origin: APP_ORIGIN },
};
/** Header sets of the server's own pages, or of a script that sends none: let through to the token. */
const OURS: Record<string, Record<string, string>> = {
  'our Origin, same-origin': { Origin: 'OWN', 'Sec-Fetch-Site': 'same-origin' },
  'nothing said (a script)': {},
  'no Origin, our Referer': { Referer: 'OWN/containers' },
};

describe('owner form posts and where they come from', () => {
  let server: TestServer;
  let owner: { token: string; email: string; password: string };
  let cookie: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_ALLOWED_ORIGINS: APP_ORIGIN } });
    owner = await makeOwner(server);
    cookie = `engram_session=${owner.token}`;
  });
  afterAll(() => server.close());

  const own = (headers: Record<string, string>) =>
    Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('OWN', server.url)]));
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string>, withCookie = cookie) =>
    fetch(`${server.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: withCookie, 'content-type': 'application/x-www-form-urlencoded', ...own(headers) },
      body: new URLSearchParams(fields),
    });
  const token = async (path = '/containers', withCookie = cookie) => {
    const page = await fetch(`${server.url}${path}`, { headers: { cookie: withCookie } });
    const set = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    return { csrf: csrfOf(await page.text()), cookie: [withCookie, set].filter(Boolean).join('; ') };
  };
  const names = async () =>
    (await call(server, 'GET', '/v1/containers', owner.token)).body.containers.map((c: { name: string }) => c.name);

  it("a page's post (make a container) is refused for each foreign signal, with a valid session and token, and taken for ours", async () => {
    for (const [what, headers] of Object.entries(FOREIGN)) {
      const { csrf } = await token();
      const res = await post('/containers', { csrf, name: `From ${what}` }, headers);
      expect({ what, status: res.status, flash: decodeURIComponent(res.headers.getSetCookie().join()) }).toMatchObject({
        what,
        status: 303,
        flash: expect.stringContaining('came from another site'),
      });
    }
    expect(await names()).toEqual([]);
    for (const [what, headers] of Object.entries(OURS)) {
      const { csrf } = await token();
      expect({ what, status: (await post('/containers', { csrf, name: `From ${what}` }, headers)).status }).toEqual({
        what,
        status: 303,
      });
    }
    expect((await names()).sort()).toEqual(
      Object.keys(OURS)
        .map((w) => `From ${w}`)
        .sort(),
    );
  });

  it('sign-in and sign-out refuse each foreign signal too', async () => {
    for (const [what, headers] of Object.entries(FOREIGN)) {
      const signIn = await token('/sign-in', '');
      const res = await post(
        '/sign-in',
        { csrf: signIn.csrf, email: owner.email, password: owner.password },
        headers,
        signIn.cookie,
      );
      expect({
        what,
        status: res.status,
        session: res.headers.getSetCookie().some((c) => c.startsWith('engram_session=')),
      }).toEqual({ what, status: 403, session: false });
      const { csrf } = await token();
      expect({ what, status: (await post('/sign-out', { csrf }, headers)).status }).toEqual({ what, status: 403 });
    }
    // The session survived every refused sign-out.
    expect((await call(server, 'GET', '/v1/containers', owner.token)).status).toBe(200);
    const signIn = await token('/sign-in', '');
    const ok = await post(
      '/sign-in',
      { csrf: signIn.csrf, email: owner.email, password: owner.password },
      OURS['our Origin, same-origin']!,
      signIn.cookie,
    );
    expect(ok.status).toBe(303);
  });

  it('setup refuses them before an account exists', async () => {
    const fresh = await startTestServer();
    try {
      for (const [what, headers] of Object.entries(FOREIGN)) {
        const page = await fetch(`${fresh.url}/setup`);
        const jar = page.headers
          .getSetCookie()
          .map((c) => c.split(';')[0])
          .join('; ');
        const res = await fetch(`${fresh.url}/setup`, {
          method: 'POST',
          redirect: 'manual',
          body: new URLSearchParams({
            csrf: csrfOf(await page.text()),
            email: 'me@example.org',
            password: 'long enough pw',
            password_again: 'long enough pw',
          }),
          headers: {
            cookie: jar,
            'content-type': 'application/x-www-form-urlencoded',
            ...Object.fromEntries(Object.entries(headers).map(([k, v]) => [k, v.replace('OWN', fresh.url)])),
          },
        });
        expect({ what, status: res.status }).toEqual({ what, status: 403 });
      }
      expect(await fresh.services.store.accounts.count()).toBe(0);
    } finally {
      await fresh.close();
    }
  });

  it('the consent screen refuses them: no code is issued', async () => {
    const redirectUri = 'http://127.0.0.1:7777/callback';
    const clientId = await registerClientId(server, [redirectUri]);
    for (const [what, headers] of Object.entries(FOREIGN)) {
      const path = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge });
      const page = await fetch(`${server.url}${path}`, { headers: { cookie } });
      expect(page.status).toBe(200);
      const { fields } = parseForm(await page.text(), '/oauth/authorize');
      const res = await post(
        '/oauth/authorize',
        { ...Object.fromEntries(fields), profile: 'on', decision: 'approve' },
        headers,
      );
      expect({ what, status: res.status, location: res.headers.get('location') }).toEqual({
        what,
        status: 403,
        location: null,
      });
    }
    // The same post from the screen itself is approved.
    const path = authorizeQuery({ clientId, redirectUri, challenge: pkce().challenge });
    const { fields } = parseForm(
      await (await fetch(`${server.url}${path}`, { headers: { cookie } })).text(),
      '/oauth/authorize',
    );
    const approved = await post(
      '/oauth/authorize',
      { ...Object.fromEntries(fields), profile: 'on', decision: 'approve' },
      OURS['our Origin, same-origin']!,
    );
    expect(approved.status).toBe(303);
    expect(approved.headers.get('location')).toStartWith(`${redirectUri}?code=`);
  });
});

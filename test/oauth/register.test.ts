/**
 * Dynamic client registration (RFC 7591): which redirect URIs are accepted, tolerance of what
 * clients ask for, the per-source limit, and the expiry of registrations nobody approved.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { redirectUriMatches, redirectUriProblem } from '../../src/oauth/redirect-uris';
import { startTestServer, type TestServer } from '../helpers/server';
import { authorizeQuery, connect, ownerWithBrowser, pkce, register } from './helpers';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer();
});

afterAll(async () => {
  await server.close();
});

describe('redirect URIs', () => {
  it.each([
    'https://claude.ai/api/mcp/auth_callback',
    'http://localhost:6274/oauth/callback',
    'http://127.0.0.1:33418',
    'http://[::1]:8080/cb',
    'http://localhost/callback',
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'com.example.app:/oauth2redirect',
  ])('accepts %s', async (uri) => {
    expect(redirectUriProblem(uri)).toBeNull();
    const res = await register(server, { redirect_uris: [uri] });
    expect(res.status).toBe(201);
    expect(res.body.redirect_uris).toEqual([uri]);
  });

  it.each([
    ['javascript:alert(1)', 'javascript'],
    ['data:text/html,<script>alert(1)</script>', 'data'],
    ['file:///etc/passwd', 'file'],
    ['vbscript:msgbox', 'vbscript'],
    ['https://app.example/cb#frag', 'fragment'],
    ['http://app.example/cb', 'plain http'],
    ['http://192.168.1.10/cb', 'plain http'],
    ['https://user:pw@app.example/cb', 'user name'],
    ['/relative/cb', 'absolute'],
    ['', 'non-empty'],
  ])('refuses %s with invalid_redirect_uri', async (uri, why) => {
    const res = await register(server, { redirect_uris: ['https://fine.example/cb', uri] });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_redirect_uri');
    expect(res.body.error_description).toContain(why);
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a registration without redirect URIs, and a body that is not a JSON object', async () => {
    expect((await register(server, { client_name: 'x' })).body.error).toBe('invalid_redirect_uri');
    expect((await register(server, { redirect_uris: [] })).body.error).toBe('invalid_redirect_uri');
    const notJson = await fetch(`${server.url}/oauth/register`, { method: 'POST', body: 'redirect_uris=x' });
    expect(notJson.status).toBe(400);
    expect((await notJson.json()).error).toBe('invalid_client_metadata');
    expect((await register(server, ['https://a.example/cb'])).body.error).toBe('invalid_client_metadata');
  });

  it('matches exactly, except the port of a loopback redirect URI', () => {
    const registered = [
      'http://127.0.0.1/callback',
      'https://app.example/cb',
      'http://localhost:6274/oauth/callback',
      'http://127.0.0.1',
    ];
    expect(redirectUriMatches(registered, 'https://app.example/cb')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://localhost:9999/oauth/callback')).toBe(true);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:59656/')).toBe(true);
    expect(redirectUriMatches(registered, 'https://app.example/cb/')).toBe(false);
    expect(redirectUriMatches(registered, 'https://app.example:8443/cb')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/other')).toBe(false);
    expect(redirectUriMatches(registered, 'http://localhost:51234/callback')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback?x=1')).toBe(false);
    expect(redirectUriMatches(registered, 'http://127.0.0.1:51234/callback#x')).toBe(false);
  });
});

describe('application_type (OpenID Connect Registration; every MCP 2026-07-28 client gives one)', () => {
  // A minute passes after these, so their registrations do not count against the limit of the ones below.
  afterAll(() => server.clock.advance(61_000));
  const NATIVE = [
    'http://127.0.0.1:33418/callback',
    'http://localhost/callback',
    'cursor://anysphere.cursor-mcp/oauth/callback',
    'https://vscode.dev/redirect',
  ];

  it('registers a native app with loopback, private-use scheme and claimed https redirect URIs, and says so', async () => {
    const res = await register(server, { client_name: 'Desktop', application_type: 'native', redirect_uris: NATIVE });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ application_type: 'native', redirect_uris: NATIVE });
  });

  it('registers a web app with https on its own host', async () => {
    const res = await register(server, {
      client_name: 'Hosted',
      application_type: 'web',
      redirect_uris: ['https://app.example/oauth/callback'],
    });
    expect(res.status).toBe(201);
    expect(res.body.application_type).toBe('web');
  });

  it.each(NATIVE.slice(0, 3).concat(['https://localhost:8443/cb', 'https://127.0.0.1/cb']))(
    'refuses a web app the native redirect URI %s',
    async (uri) => {
      const res = await register(server, {
        client_name: 'Hosted',
        application_type: 'web',
        redirect_uris: ['https://app.example/cb', uri],
      });
      expect(res.status).toBe(400);
      expect(res.body.error).toBe('invalid_redirect_uri');
      expect(res.body.error_description).toContain(`${uri} is a native app's redirect URI`);
      expect(res.body.error_description).toContain('application_type "native"');
    },
  );

  it('refuses an application_type that is neither, and reads null as not given', async () => {
    const res = await register(server, { application_type: 'desktop', redirect_uris: ['http://127.0.0.1/cb'] });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'invalid_client_metadata',
      error_description: 'application_type must be "native" or "web".',
    });
    const unsaid = await register(server, { application_type: null, redirect_uris: ['http://127.0.0.1/cb'] });
    expect(unsaid.status).toBe(201);
    expect(unsaid.body.application_type).toBeUndefined();
  });
});

describe('what is registered', () => {
  it('registers a public client and answers with what it supports, whatever was asked', async () => {
    const res = await register(server, {
      client_name: 'Greedy App',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
      response_types: ['code', 'token'],
      token_endpoint_auth_method: 'client_secret_post',
      application_type: 'native',
      scope: 'openid offline_access everything',
      client_uri: 'https://app.example',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.body).toEqual({
      client_id: expect.stringMatching(/^app_\w{16}$/),
      client_id_issued_at: expect.any(Number),
      client_name: 'Greedy App',
      redirect_uris: ['https://app.example/cb'],
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      scope: 'memory.read',
      application_type: 'native',
      client_uri: 'https://app.example',
    });
    expect(res.body.client_secret).toBeUndefined();
  });

  it('is cheap and tolerant of a client registering twice per connect', async () => {
    const body = { client_name: 'Twice', redirect_uris: ['http://localhost:3118/callback'] };
    const a = await register(server, body);
    const b = await register(server, body);
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    expect(a.body.client_id).not.toBe(b.body.client_id);
  });

  it('forgets a registration nobody approved within a day, but keeps an approved one', async () => {
    const own = await startTestServer();
    try {
      const owner = await ownerWithBrowser(own, ['work']);
      const unused = await register(own, { redirect_uris: ['http://127.0.0.1:7777/callback'] });
      const used = await connect(own, owner, { containers: [owner.containers.work!] });
      own.clock.advance(25 * 3_600_000);
      await register(own, { redirect_uris: ['http://127.0.0.1:7777/callback'] }); // sweeps expired registrations
      const gone = await owner.browser.fetch(
        authorizeQuery({
          clientId: unused.body.client_id,
          redirectUri: 'http://127.0.0.1:7777/callback',
          challenge: pkce().challenge,
        }),
      );
      expect(gone.status).toBe(400);
      expect(await gone.text()).toContain('not registered');
      const kept = await owner.browser.fetch(
        authorizeQuery({
          clientId: used.clientId,
          redirectUri: 'http://127.0.0.1:7777/callback',
          challenge: pkce().challenge,
        }),
      );
      expect(kept.status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('drops invisible formatting characters from client_name, so a name cannot pose as another on the consent screen', async () => {
    const res = await register(server, {
      client_name: '\u202EppA\u2066 Claude\u200B\u200F\u0007',
      redirect_uris: ['https://app.example/cb'],
    });
    expect(res.status).toBe(201);
    expect(res.body.client_name).toBe('ppA Claude');
    expect((await server.services.store.oauth.getClient(res.body.client_id))?.name).toBe('ppA Claude');
    // Nothing visible left: the name any unnamed app gets.
    expect(
      (await register(server, { client_name: '\u202E\u200B', redirect_uris: ['https://app.example/cb'] })).body
        .client_name,
    ).toBe('Unnamed app');
  });

  it('limits registrations per source address', async () => {
    const own = await startTestServer();
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 32; i++)
        statuses.push((await register(own, { redirect_uris: ['https://app.example/cb'] })).status);
      expect(statuses.slice(0, 30).every((s) => s === 201)).toBe(true);
      expect(statuses.slice(30)).toEqual([429, 429]);
      const limited = await register(own, { redirect_uris: ['https://app.example/cb'] });
      expect(limited.body.error).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toBe('60');
      own.clock.advance(61_000);
      expect((await register(own, { redirect_uris: ['https://app.example/cb'] })).status).toBe(201);
    } finally {
      await own.close();
    }
  });
});

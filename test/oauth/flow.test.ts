/**
 * The authorization code flow against the raw endpoints: what the authorization and token
 * endpoints accept and refuse (PKCE, state and iss, redirect URI matching, resource, scopes,
 * single-use codes), and what a consent token can and cannot do afterwards on MCP and REST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { DAY_MS } from '../../src/clock';
import { call, makeKey, startTestServer, type TestServer } from '../helpers/server';
import {
  authorizeQuery,
  Browser,
  connect,
  decide,
  mcpCall,
  mcpTools,
  type Owner,
  ownerWithBrowser,
  parseForm,
  pkce,
  registerClientId,
  tokenRequest,
} from './helpers';

const REDIRECT = 'http://127.0.0.1:7777/callback';

let server: TestServer;
let owner: Owner;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithBrowser(server, ['work', 'health', 'travel']);
});

afterAll(async () => {
  await server.close();
});

/** A registered client, a PKCE pair and an approved code for it. */
async function approvedCode(d: { containers?: string[]; profile?: boolean } = {}, redirectUri = REDIRECT) {
  const clientId = await registerClientId(server, [redirectUri]);
  const p = pkce();
  const back = await decide(
    owner.browser,
    authorizeQuery({ clientId, redirectUri, challenge: p.challenge, state: 'st-1' }),
    {
      containers: d.containers ?? [owner.containers.work!],
      profile: d.profile,
    },
  );
  return { clientId, p, code: back.searchParams.get('code')!, back };
}

const exchange = (
  clientId: string,
  code: string,
  verifier: string,
  redirectUri = REDIRECT,
  extra: Record<string, string> = {},
) =>
  tokenRequest(server, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: redirectUri,
    client_id: clientId,
    code_verifier: verifier,
    ...extra,
  });

describe('authorization endpoint', () => {
  it('echoes state and returns iss with the code', async () => {
    const { back } = await approvedCode();
    expect(back.origin + back.pathname).toBe(REDIRECT);
    expect(back.searchParams.get('state')).toBe('st-1');
    expect(back.searchParams.get('iss')).toBe(server.site.baseUrl);
    expect(back.searchParams.get('code')).toMatch(/^ega_/);
  });

  it('sends a person who is not signed in to the sign-in page, and back to the consent screen after', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const path = authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'x' });
    const browser = new Browser(server);
    const res = await browser.fetch(path);
    expect(res.status).toBe(303);
    const signIn = new URL(res.headers.get('location')!, server.url);
    expect(signIn.pathname).toBe('/sign-in');
    expect(signIn.searchParams.get('next')).toBe(path);
    const page = await browser.fetch(signIn.pathname + signIn.search);
    const { fields } = parseForm(await page.text(), '/sign-in');
    const signedIn = await browser.postForm('/sign-in', {
      ...Object.fromEntries(fields),
      email: owner.email,
      password: owner.password,
    });
    expect(signedIn.status).toBe(303);
    expect(signedIn.headers.get('location')).toBe(path);
    expect(signedIn.headers.getSetCookie().join()).toMatch(/engram_session=egs_[^;]+;.*HttpOnly.*SameSite=Lax/i);
    expect((await browser.fetch(path)).status).toBe(200);
  });

  it('refuses a sign-in form without its CSRF token, and a wrong password', async () => {
    const browser = new Browser(server);
    await browser.fetch('/sign-in');
    const noToken = await browser.postForm('/sign-in', {
      email: owner.email,
      password: owner.password,
      next: '/connected-apps',
    });
    expect(noToken.status).toBe(403);
    expect(browser.cookies.has('engram_session')).toBe(false);
    const { fields } = parseForm(await (await browser.fetch('/sign-in')).text(), '/sign-in');
    const wrong = await browser.postForm('/sign-in', {
      ...Object.fromEntries(fields),
      email: owner.email,
      password: 'not the password',
    });
    expect(wrong.status).toBe(401);
    expect(await wrong.text()).toContain('The email or password is wrong.');
  });

  it('shows the consent screen with the app name, redirect host, a tick per container and the profile tick', async () => {
    const clientId = await registerClientId(server, ['https://app.example.com/oauth/cb'], {
      client_name: 'Example Assistant',
    });
    const res = await owner.browser.fetch(
      authorizeQuery({ clientId, redirectUri: 'https://app.example.com/oauth/cb', challenge: pkce().challenge }),
    );
    expect(res.status).toBe(200);
    const csp = res.headers.get('content-security-policy')!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' https://app.example.com");
    const html = await res.text();
    expect(html).toContain('Example Assistant');
    expect(html).toContain('app.example.com');
    const { checkboxes, fields } = parseForm(html, '/oauth/authorize');
    expect(
      checkboxes
        .filter((b) => b.name === 'containers')
        .map((b) => b.value)
        .sort(),
    ).toEqual(Object.values(owner.containers).sort());
    expect(checkboxes.some((b) => b.name === 'profile')).toBe(true);
    expect(fields.find(([n]) => n === 'csrf')?.[1]).toBeTruthy();
  });

  it('refuses plain PKCE and a missing challenge by redirecting with invalid_request', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const p = pkce();
    for (const path of [
      authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: p.verifier, method: 'plain', state: 'a' }),
      authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: p.challenge, method: null, state: 'a' }),
      authorizeQuery({ clientId, redirectUri: REDIRECT, state: 'a' }),
    ]) {
      const res = await owner.browser.fetch(path);
      expect(res.status).toBe(302);
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(REDIRECT);
      expect(back.searchParams.get('error')).toBe('invalid_request');
      expect(back.searchParams.get('state')).toBe('a');
      expect(back.searchParams.get('iss')).toBe(server.site.baseUrl);
    }
  });

  it('refuses a redirect URI that was not registered, without redirecting to it', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    for (const uri of [
      'http://127.0.0.1:7777/other',
      'https://evil.example/callback',
      `${REDIRECT}?x=1`,
      'http://localhost:7777/callback',
    ]) {
      const res = await owner.browser.fetch(
        authorizeQuery({ clientId, redirectUri: uri, challenge: pkce().challenge }),
      );
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
      expect(await res.text()).toContain('not a return address');
    }
  });

  it('accepts any port on a registered loopback redirect URI (RFC 8252)', async () => {
    const { clientId, p, code } = await approvedCode({}, 'http://127.0.0.1/callback').then(async (first) => {
      // Registered without a port; the app comes back on an ephemeral one.
      const redirect = 'http://127.0.0.1:51234/callback';
      const pp = pkce();
      const back = await decide(
        owner.browser,
        authorizeQuery({ clientId: first.clientId, redirectUri: redirect, challenge: pp.challenge }),
        {
          containers: [owner.containers.work!],
        },
      );
      return { clientId: first.clientId, p: pp, code: back.searchParams.get('code')! };
    });
    const res = await exchange(clientId, code, p.verifier, 'http://127.0.0.1:51234/callback');
    expect(res.status).toBe(200);
  });

  it('refuses an unknown client with a page, not a redirect', async () => {
    const res = await owner.browser.fetch(
      authorizeQuery({ clientId: 'app_doesNotExist000', redirectUri: REDIRECT, challenge: pkce().challenge }),
    );
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('not registered');
  });

  it('binds the origin form and the /mcp-http form of resource to the same audience; anything else is invalid_target', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    for (const resource of [server.site.baseUrl, `${server.site.baseUrl}/`, `${server.site.baseUrl}/mcp-http`]) {
      const p = pkce();
      const back = await decide(
        owner.browser,
        authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: p.challenge, resource }),
        {
          containers: [owner.containers.work!],
        },
      );
      const res = await exchange(clientId, back.searchParams.get('code')!, p.verifier, REDIRECT, { resource });
      expect(res.status).toBe(200);
      expect((await mcpCall(server, res.body.access_token, 'tools/list')).status).toBe(200);
    }
    const res = await owner.browser.fetch(
      authorizeQuery({
        clientId,
        redirectUri: REDIRECT,
        challenge: pkce().challenge,
        resource: 'https://other.example/mcp',
        state: 'z',
      }),
    );
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).searchParams.get('error')).toBe('invalid_target');
  });

  it('drops unknown scopes instead of refusing them', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const p = pkce();
    const back = await decide(
      owner.browser,
      authorizeQuery({
        clientId,
        redirectUri: REDIRECT,
        challenge: p.challenge,
        scope: 'openid offline_access memory.read profile email',
      }),
      {
        containers: [owner.containers.work!],
      },
    );
    const res = await exchange(clientId, back.searchParams.get('code')!, p.verifier);
    expect(res.status).toBe(200);
    expect(res.body.scope).toBe('memory.read');
  });

  it('redirects a denial with access_denied, and issues no code', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const back = await decide(
      owner.browser,
      authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: pkce().challenge, state: 'deny-me' }),
      {
        decision: 'deny',
      },
    );
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('deny-me');
    expect(back.searchParams.get('iss')).toBe(server.site.baseUrl);
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('refuses a consent form whose CSRF token is missing or belongs to another session', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const path = authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: pkce().challenge });
    const { fields } = parseForm(await (await owner.browser.fetch(path)).text(), '/oauth/authorize');
    const other = new Browser(server);
    await other.signIn(owner.email, owner.password);
    const body = fields.filter(([n]) => n !== 'csrf');
    for (const attempt of [body, [...body, ['csrf', 'forged'] as [string, string]]]) {
      const res = await other.postForm('/oauth/authorize', [
        ...attempt,
        ['containers', owner.containers.work!],
        ['decision', 'approve'],
      ]);
      expect(res.status).toBe(403);
      expect(res.headers.get('location')).toBeNull();
    }
    // The first session's token does not carry over to the second session either.
    const stolen = await other.postForm('/oauth/authorize', [
      ...fields,
      ['containers', owner.containers.work!],
      ['decision', 'approve'],
    ]);
    expect(stolen.status).toBe(403);
  });

  it('refuses a consent form posted from another origin', async () => {
    const clientId = await registerClientId(server, [REDIRECT]);
    const path = authorizeQuery({ clientId, redirectUri: REDIRECT, challenge: pkce().challenge });
    const { fields } = parseForm(await (await owner.browser.fetch(path)).text(), '/oauth/authorize');
    const res = await owner.browser.fetch('/oauth/authorize', {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Origin: 'https://evil.example' },
      body: new URLSearchParams([...fields, ['containers', owner.containers.work!], ['decision', 'approve']]),
    });
    expect(res.status).toBe(403);
  });
});

describe('token endpoint', () => {
  it('answers a bearer token with the lifetime of DECISIONS.md, the scope, no refresh token, and no-store', async () => {
    const { clientId, p, code } = await approvedCode();
    const res = await exchange(clientId, code, p.verifier);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^egc_\w+_\w+$/),
      token_type: 'Bearer',
      expires_in: 30 * 86400,
      scope: 'memory.read',
    });
  });

  it('refuses a wrong verifier with invalid_grant', async () => {
    const { clientId, code } = await approvedCode();
    const res = await exchange(clientId, code, pkce().verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toContain('code_verifier');
    expect(res.headers.get('cache-control')).toBe('no-store');
  });

  it('refuses a missing verifier with invalid_request', async () => {
    const { clientId, code } = await approvedCode();
    const res = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
  });

  it('refuses a reused code, and revokes the token the code minted', async () => {
    const { clientId, p, code } = await approvedCode();
    const first = await exchange(clientId, code, p.verifier);
    expect(first.status).toBe(200);
    expect((await mcpCall(server, first.body.access_token, 'tools/list')).status).toBe(200);
    const again = await exchange(clientId, code, p.verifier);
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    const after = await mcpCall(server, first.body.access_token, 'tools/list');
    expect(after.status).toBe(401);
    expect(after.body.error).toBe('invalid_token');
  });

  it('refuses a redirect_uri that differs from the authorization request', async () => {
    const { clientId, p, code } = await approvedCode();
    const res = await exchange(clientId, code, p.verifier, 'http://127.0.0.1:7777/other');
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
  });

  it('refuses an unknown client with 401 invalid_client, and a code issued to another client with invalid_grant', async () => {
    const { p, code } = await approvedCode();
    const unknown = await exchange('app_unknown00000000', code, p.verifier);
    expect(unknown.status).toBe(401);
    expect(unknown.body.error).toBe('invalid_client');
    const otherClient = await registerClientId(server, [REDIRECT]);
    const other = await exchange(otherClient, code, p.verifier);
    expect(other.status).toBe(400);
    expect(other.body.error).toBe('invalid_grant');
  });

  it('refuses an expired code', async () => {
    const { clientId, p, code } = await approvedCode();
    server.clock.advance(10 * 60_000);
    const res = await exchange(clientId, code, p.verifier);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_grant');
    expect(res.body.error_description).toContain('expired');
  });

  it('refuses other grant types, a resource of another server, and an unknown code', async () => {
    const { clientId, p, code } = await approvedCode();
    const refresh = await tokenRequest(server, {
      grant_type: 'refresh_token',
      refresh_token: 'x',
      client_id: clientId,
    });
    expect(refresh.body.error).toBe('unsupported_grant_type');
    const target = await exchange(clientId, code, p.verifier, REDIRECT, { resource: 'https://other.example/mcp' });
    expect(target.body.error).toBe('invalid_target');
    const unknownCode = await exchange(clientId, 'ega_nope_nope', p.verifier);
    expect(unknownCode.body.error).toBe('invalid_grant');
    // The code was not spent by the refused attempts.
    expect((await exchange(clientId, code, p.verifier)).status).toBe(200);
  });

  it('accepts the client_id as the user name of HTTP Basic', async () => {
    const { clientId, p, code } = await approvedCode();
    const res = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: `Basic ${Buffer.from(`${clientId}:`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: p.verifier,
      }),
    });
    expect(res.status).toBe(200);
  });

  it('answers a Basic user name with a bad percent-escape with 401 invalid_client, on token and revoke alike', async () => {
    const { clientId, p, code } = await approvedCode();
    const basic = `Basic ${Buffer.from('%zz%E0%A4%A:').toString('base64')}`;
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: REDIRECT,
        code_verifier: p.verifier,
        client_id: clientId,
      }),
    });
    const revoke = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: basic },
      body: new URLSearchParams({ token: 'whatever' }),
    });
    for (const res of [token, revoke]) {
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Basic realm="engram"');
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect((await res.json()).error).toBe('invalid_client');
    }
    // The refused request did not spend the code.
    expect((await exchange(clientId, code, p.verifier)).status).toBe(200);
  });

  it('revokes a token through /oauth/revoke (RFC 7009)', async () => {
    const { clientId, p, code } = await approvedCode();
    const token = (await exchange(clientId, code, p.verifier)).body.access_token;
    const res = await fetch(`${server.url}/oauth/revoke`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token, client_id: clientId }),
    });
    expect(res.status).toBe(200);
    expect((await mcpCall(server, token, 'tools/list')).status).toBe(401);
  });
});

describe('a consent token', () => {
  it('is offered only list_containers and search_memories, plus get_profile when ticked', async () => {
    const plain = await connect(server, owner, { containers: [owner.containers.work!] });
    expect(await mcpTools(server, plain.access_token)).toEqual(['list_containers', 'search_memories']);
    const withProfile = await connect(server, owner, { containers: [owner.containers.work!], profile: true });
    expect(await mcpTools(server, withProfile.access_token)).toEqual([
      'list_containers',
      'search_memories',
      'get_profile',
    ]);
  });

  it("is refused forget_memory and delete_document on MCP with 403: not in the agent's capability profile", async () => {
    const fact = await call(server, 'POST', '/v1/memories', owner.token, {
      container: owner.containers.work,
      content: 'Keep this',
    });
    const { access_token } = await connect(server, owner, { containers: [owner.containers.work!], profile: true });
    for (const [name, args] of [
      ['forget_memory', { memory_id: fact.body.id, confirm: true }],
      ['delete_document', { document_id: 'doc_x', confirm: true }],
      ['add_memory', { content: 'x' }],
    ] as const) {
      const res = await mcpCall(server, access_token, 'tools/call', { name, arguments: args });
      expect(res.status).toBe(403);
      expect(res.body.error.data.code).toBe('unauthorized');
      expect(res.body.error.message).toContain("not in the agent's capability profile");
    }
    expect((await call(server, 'GET', `/v1/profile`, owner.token)).body.static).toBeDefined();
    const stillThere = await call(server, 'POST', '/v1/search', owner.token, {
      q: 'Keep this',
      container: owner.containers.work,
    });
    expect(stillThere.body.results.length).toBeGreaterThan(0);
  });

  it('reaches the same read operations on REST, within the ticked containers only', async () => {
    const { access_token } = await connect(server, owner, {
      containers: [owner.containers.work!, owner.containers.travel!],
    });
    const listed = await call(server, 'GET', '/v1/containers', access_token);
    expect(listed.status).toBe(200);
    expect(listed.body.containers.map((c: { id: string }) => c.id)).toEqual([
      owner.containers.work,
      owner.containers.travel,
    ]);
    expect(
      (await call(server, 'POST', '/v1/search', access_token, { q: 'anything', container: owner.containers.work }))
        .status,
    ).toBe(200);
    const outside = await call(server, 'POST', '/v1/search', access_token, {
      q: 'anything',
      container: owner.containers.health,
    });
    expect(outside.status).toBe(403);
    expect(outside.body.code).toBe('unauthorized');
    for (const [method, path, body] of [
      ['GET', '/v1/profile', undefined],
      ['GET', '/v1/documents', undefined],
      ['GET', '/v1/rules', undefined],
      ['POST', '/v1/memories', { content: 'x', container: owner.containers.work }],
      ['DELETE', '/v1/memories/mem_x?confirm=true', undefined],
      ['GET', '/v1/api-keys', undefined],
      ['GET', '/v1/connected-apps', undefined],
    ] as const) {
      const res = await call(server, method, path, access_token, body);
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 403, code: 'unauthorized' });
    }
  });

  it('keeps its profile tick: a consent token is not a key the owner can edit', async () => {
    const { access_token } = await connect(server, owner, { containers: [owner.containers.work!] });
    const tokenId = access_token.split('_')[1];
    const patched = await call(server, 'PATCH', `/v1/api-keys/${tokenId}`, owner.token, { profile: true });
    expect(patched.status).toBe(404);
    const keys = await call(server, 'GET', '/v1/api-keys', owner.token);
    expect(
      [...keys.body.active, ...keys.body.expired, ...keys.body.revoked].some((k: { id: string }) => k.id === tokenId),
    ).toBe(false);
    expect(await mcpTools(server, access_token)).not.toContain('get_profile');
  });

  it('expires at the end of its lifetime: 401 on MCP, and the app must authorize again', async () => {
    // A server of its own: thirty days later the owner's session has ended too.
    const own = await startTestServer();
    try {
      const person = await ownerWithBrowser(own, ['work']);
      const { access_token } = await connect(own, person, { containers: [person.containers.work!] });
      own.clock.advance(30 * DAY_MS - 1000);
      expect((await mcpCall(own, access_token, 'tools/list')).status).toBe(200);
      own.clock.advance(2000);
      const res = await mcpCall(own, access_token, 'tools/list');
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: 'invalid_token', error_description: 'The credential has expired.' });
      expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
      expect((await call(own, 'GET', '/v1/containers', access_token)).status).toBe(403);
      expect((await call(own, 'GET', '/v1/connected-apps', person.token)).status).toBe(403); // that session ended as well
      // The owner signs in again and approves again: a working token.
      await person.browser.signIn(person.email, person.password);
      const again = await connect(own, person, { containers: [person.containers.work!] });
      expect((await mcpCall(own, again.access_token, 'tools/list')).status).toBe(200);
    } finally {
      await own.close();
    }
  });

  it('is refused when it was issued for another resource (the public base URL changed)', async () => {
    const own = await startTestServer({ env: { ENGRAM_PUBLIC_URL: 'https://memory-one.example.org' } });
    let moved: TestServer | null = null;
    try {
      const person = await ownerWithBrowser(own, ['work']);
      const { access_token } = await connect(own, person, { containers: [person.containers.work!] });
      expect((await mcpCall(own, access_token, 'tools/list')).status).toBe(200);
      await own.stop();
      moved = await startTestServer({
        dataDir: own.dataDir,
        clock: own.clock,
        env: { ENGRAM_PUBLIC_URL: 'https://memory-two.example.org' },
      });
      const res = await mcpCall(moved, access_token, 'tools/list');
      expect(res.status).toBe(401);
      expect(res.body.error_description).toContain('another resource');
      expect((await call(moved, 'GET', '/v1/containers', access_token)).status).toBe(403);
    } finally {
      await (moved ?? own).close();
    }
  });
});

describe('connected apps and disconnect', () => {
  it('lists each app with reach, profile tick, dates; Disconnect revokes every token the app holds', async () => {
    const redirect = 'http://127.0.0.1:8888/cb';
    const clientId = await registerClientId(server, [redirect], { client_name: 'Two-token app' });
    const tokens: string[] = [];
    for (const d of [
      { containers: [owner.containers.work!] },
      { containers: [owner.containers.travel!], profile: true },
    ]) {
      const p = pkce();
      const back = await decide(
        owner.browser,
        authorizeQuery({ clientId, redirectUri: redirect, challenge: p.challenge }),
        d,
      );
      const res = await exchange(clientId, back.searchParams.get('code')!, p.verifier, redirect);
      tokens.push(res.body.access_token);
    }
    await mcpCall(server, tokens[0]!, 'tools/call', { name: 'list_containers', arguments: {} });
    const listed = await call(server, 'GET', '/v1/connected-apps', owner.token);
    expect(listed.status).toBe(200);
    const app = listed.body.apps.find((a: { client_id: string }) => a.client_id === clientId);
    expect(app).toMatchObject({
      name: 'Two-token app',
      redirect_hosts: ['127.0.0.1:8888'],
      profile: true,
      tokens: 2,
      containers: [
        { id: owner.containers.work, name: 'work' },
        { id: owner.containers.travel, name: 'travel' },
      ],
    });
    expect(app.connected_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(app.last_used_at).toMatch(/^\d{4}-\d\d-\d\dT/);

    const page = await owner.browser.fetch('/connected-apps');
    const html = await page.text();
    expect(html).toContain('Two-token app');
    const form = html.slice(html.indexOf(`value="${clientId}"`) - 400);
    const csrf = form.match(/name="csrf" value="([^"]+)"/)![1]!;
    const res = await owner.browser.postForm('/connected-apps/disconnect', { csrf, client_id: clientId });
    expect(res.status).toBe(303);
    for (const token of tokens) expect((await mcpCall(server, token, 'tools/list')).status).toBe(401);
    const after = await call(server, 'GET', '/v1/connected-apps', owner.token);
    expect(after.body.apps.some((a: { client_id: string }) => a.client_id === clientId)).toBe(false);
  });

  it('disconnects over REST with the owner session: DELETE /v1/connected-apps/{client_id}', async () => {
    const { access_token, clientId } = await connect(server, owner, { containers: [owner.containers.work!] });
    const res = await call(server, 'DELETE', `/v1/connected-apps/${encodeURIComponent(clientId)}`, owner.token);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'disconnected', client_id: clientId, revoked: 1 });
    expect((await mcpCall(server, access_token, 'tools/list')).status).toBe(401);
    const twice = await call(server, 'DELETE', `/v1/connected-apps/${encodeURIComponent(clientId)}`, owner.token);
    expect(twice.body.revoked).toBe(0);
    const unknown = await call(server, 'DELETE', '/v1/connected-apps/app_neverConnected0', owner.token);
    expect(unknown.status).toBe(404);
  });

  it('refuses the connected-apps operations to a developer key', async () => {
    const key = await makeKey(server, owner.token, { level: 'manage', all_views: true });
    expect((await call(server, 'GET', '/v1/connected-apps', key.key)).status).toBe(403);
  });
});

describe('a developer key on MCP', () => {
  it('keeps working in the same header and receives its level', async () => {
    const key = await makeKey(server, owner.token, { level: 'suggest', all_views: true, profile: true });
    const tools = await mcpTools(server, key.key);
    expect(tools).toContain('add_memory');
    expect(tools).toContain('list_documents');
    expect(tools).not.toContain('forget_memory');
  });
});

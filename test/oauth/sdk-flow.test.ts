/**
 * The whole OAuth flow headless with the official TypeScript SDK's client-side OAuth: a 401 from
 * /mcp-http, discovery, dynamic registration, authorization with PKCE, the owner's approval posted
 * to the consent form from a signed-in session, the token exchange, then tools/list and a search
 * over MCP with the consent token.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { auth, type OAuthClientProvider, UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { type Browser, parseForm, ownerWithBrowser, type Owner } from './helpers';

const REDIRECT = 'http://127.0.0.1:33418/callback';

/** An app's OAuth state, kept in memory; the authorization URL it is sent to is recorded, not opened. */
class MemoryProvider implements OAuthClientProvider {
  info: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  authorizationUrl: URL | null = null;
  readonly stateValue = `state-${crypto.randomUUID()}`;

  get redirectUrl() {
    return REDIRECT;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'SDK test app',
      redirect_uris: [REDIRECT],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return this.stateValue;
  }
  clientInformation() {
    return this.info;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.info = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(v: string) {
    this.verifier = v;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/** What the owner does in the browser: open the authorization URL, tick, approve; the code from the redirect. */
async function approveInBrowser(
  browser: Browser,
  authorizationUrl: URL,
  ticks: string[],
  profile: boolean,
  state: string,
): Promise<string> {
  const page = await browser.fetch(authorizationUrl.href);
  expect(page.status).toBe(200);
  const { fields } = parseForm(await page.text(), '/oauth/authorize');
  const body: [string, string][] = [
    ...fields,
    ...ticks.map((id): [string, string] => ['containers', id]),
    ['decision', 'approve'],
  ];
  if (profile) body.push(['profile', 'on']);
  const res = await browser.postForm('/oauth/authorize', body);
  expect(res.status).toBe(303);
  const back = new URL(res.headers.get('location')!);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  expect(back.searchParams.get('state')).toBe(state);
  return back.searchParams.get('code')!;
}

let server: TestServer;
let owner: Owner;

beforeAll(async () => {
  server = await startTestServer();
  owner = await ownerWithBrowser(server, ['work', 'health', 'travel']);
  // Something to find: a fact in "work", and one in "health", which will stay out of reach.
  const facts = [
    ['work', 'The quarterly planning offsite is in Lisbon'],
    ['health', 'Allergic to penicillin since childhood'],
  ] as const;
  for (const [name, content] of facts) {
    const res = await call(server, 'POST', '/v1/memories', owner.token, { container: owner.containers[name], content });
    expect(res.status).toBe(201);
  }
});

afterAll(async () => {
  await server.close();
});

describe('the OAuth flow with the SDK client', () => {
  it('goes from a 401 to a search over MCP with a consent token', async () => {
    const provider = new MemoryProvider();
    const mcpUrl = new URL(`${server.url}/mcp-http`);
    const seen: { url: string; status: number }[] = [];
    const recording = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      seen.push({ url: String(input instanceof Request ? input.url : input), status: res.status });
      return res;
    };

    // 1. The first connect answers 401; the SDK discovers, registers and wants the owner's approval.
    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: recording });
    await expect(new Client({ name: 'sdk-test', version: '1.0.0' }).connect(transport)).rejects.toBeInstanceOf(
      UnauthorizedError,
    );
    expect(seen[0]).toEqual({ url: mcpUrl.href, status: 401 });
    const urls = seen.map((s) => new URL(s.url).pathname);
    expect(urls).toContain('/.well-known/oauth-protected-resource/mcp-http');
    expect(urls).toContain('/.well-known/oauth-authorization-server');
    expect(urls).toContain('/oauth/register');
    expect(provider.info?.client_id).toMatch(/^app_/);

    // 2. The authorization URL asks for a code with PKCE S256, our resource and the state.
    const authUrl = provider.authorizationUrl!;
    expect(authUrl.origin + authUrl.pathname).toBe(`${server.url}/oauth/authorize`);
    expect(authUrl.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authUrl.searchParams.get('resource')).toBe(`${server.url}/mcp-http`);

    // 3. The owner, signed in, ticks two containers (no profile) and approves.
    const code = await approveInBrowser(
      owner.browser,
      authUrl,
      [owner.containers.work!, owner.containers.travel!],
      false,
      provider.stateValue,
    );

    // 4. The SDK exchanges the code.
    await transport.finishAuth(code);
    expect(provider.saved?.access_token).toMatch(/^egc_/);
    expect(provider.saved?.token_type).toBe('Bearer');
    expect(provider.saved?.refresh_token).toBeUndefined();
    expect(provider.saved?.scope).toBe('memory.read');

    // 5. Connected: read-only tools, no profile, and search reaches "work" only.
    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      const tools = (await client.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(['list_containers', 'search_memories']);
      const found = await client.callTool({
        name: 'search_memories',
        arguments: { q: 'offsite Lisbon', container: owner.containers.work },
      });
      expect(found.isError).toBeFalsy();
      const hits = (found.structuredContent as { results: { content: string }[] }).results;
      expect(hits.map((h) => h.content)).toContain('The quarterly planning offsite is in Lisbon');
      const everywhere = await client.callTool({
        name: 'search_memories',
        arguments: { q: 'penicillin', container: '*' },
      });
      expect((everywhere.structuredContent as { results: unknown[] }).results).toEqual([]);
      const listed = await client.callTool({ name: 'list_containers', arguments: {} });
      expect((listed.structuredContent as { containers: { name: string }[] }).containers.map((c) => c.name)).toEqual([
        'work',
        'travel',
      ]);
    } finally {
      await client.close();
    }
  });

  it('works through the auth() helper alone, and a profile tick offers get_profile', async () => {
    const provider = new MemoryProvider();
    const serverUrl = `${server.url}/mcp-http`;
    expect(await auth(provider, { serverUrl })).toBe('REDIRECT');
    const code = await approveInBrowser(
      owner.browser,
      provider.authorizationUrl!,
      [owner.containers.health!],
      true,
      provider.stateValue,
    );
    expect(await auth(provider, { serverUrl, authorizationCode: code })).toBe('AUTHORIZED');

    const client = new Client({ name: 'sdk-test', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(serverUrl), { authProvider: provider }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([
        'list_containers',
        'search_memories',
        'get_profile',
      ]);
      const profile = await client.callTool({ name: 'get_profile', arguments: {} });
      expect(profile.isError).toBeFalsy();
    } finally {
      await client.close();
    }
  });
});

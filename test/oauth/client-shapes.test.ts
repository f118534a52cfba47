/**
 * Client-shape regression suite: the registration bodies (or client ID metadata documents) and
 * redirect sets of real MCP clients, as their public documentation, source and issue trackers show
 * them, each taken through authorization and the token exchange to a working tools/list. When a
 * client changes shape, add the new shape here next to the old one. Sources:
 *
 * - Claude (web, desktop): DCR body quoted in anthropics/claude-code#5826 (client_secret_post asked
 *   for, refresh_token asked for, callback https://claude.ai/api/mcp/auth_callback); the client ID
 *   metadata document https://claude.ai/oauth/mcp-oauth-client-metadata as transcribed field for
 *   field from the live document (Anthropic's connector authentication docs: CIMD is used when the
 *   server advertises client_id_metadata_document_supported and "none"); resource sent with its path.
 * - Claude Code: DCR with an ephemeral http://localhost:<port>/callback (anthropics/claude-code#10439,
 *   #24870); CIMD https://claude.ai/oauth/claude-code-client-metadata with port-less loopback
 *   redirects http://localhost/callback and http://127.0.0.1/callback (Claude Code 2.1.81 changelog).
 * - VS Code: `fetchDynamicRegistration` in microsoft/vscode src/vs/base/common/oauth.ts (grant types
 *   filtered by our grant_types_supported, the six redirect URIs, application_type native), and the
 *   authorize redirect on a random port with a final slash (microsoft/vscode#278512).
 * - Cursor: the three redirect URIs of one registration (cursor://anysphere.cursor-mcp/oauth/callback,
 *   https://www.cursor.com/agents/mcp/oauth/callback, http://localhost:8787/callback) as reported in
 *   makeplane/plane-mcp-server#159 and erp-mafia/accounted#2225; token_endpoint_auth_method none.
 * - ChatGPT: the legacy callback https://chatgpt.com/connector_platform_oauth_redirect and the
 *   per-connector https://chatgpt.com/connector/oauth/<id> (kunickiaj/codemem#1286,
 *   makeplane/plane-mcp-server#165); the metadata document https://chatgpt.com/oauth/client.json,
 *   which prefers private_key_jwt (qyl interop notes) — a method this server does not offer, so the
 *   app uses "none", as our metadata says.
 * - MCP Inspector: InspectorOAuthClientProvider.clientMetadata in modelcontextprotocol/inspector
 *   (client/src/lib/auth.ts): callback http://localhost:6274/oauth/callback (and /oauth/callback/debug),
 *   an empty scope string, client_uri of the repository.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { startTestServer, type TestServer } from '../helpers/server';
import { FakeInternet } from './fake-internet';
import {
  authorizeQuery,
  decide,
  mcpTools,
  type Owner,
  ownerWithBrowser,
  pkce,
  register,
  tokenRequest,
} from './helpers';

interface Shape {
  client: string;
  /** An RFC 7591 request body, or a metadata document served at `documentUrl`. */
  registration: Record<string, unknown>;
  documentUrl?: string;
  /** The redirect URI the client sends on the authorization request. */
  redirectUri: string;
  /** How it names the resource on both requests: absent, the origin, or the MCP URL. */
  resource: 'none' | 'origin' | 'origin/' | 'mcp';
  scope?: string;
  /** The client_id goes in HTTP Basic instead of the body. */
  basic?: boolean;
}

const SHAPES: Shape[] = [
  {
    client: 'Claude (web), dynamic registration',
    registration: {
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      token_endpoint_auth_method: 'client_secret_post',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'Claude',
    },
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    resource: 'mcp',
    scope: 'memory.read',
  },
  {
    client: 'Claude (web), client ID metadata document',
    documentUrl: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
    registration: {
      client_id: 'https://claude.ai/oauth/mcp-oauth-client-metadata',
      client_name: 'Claude',
      client_uri: 'https://claude.ai',
      redirect_uris: ['https://claude.ai/api/mcp/auth_callback'],
      grant_types: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:jwt-bearer'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUri: 'https://claude.ai/api/mcp/auth_callback',
    resource: 'mcp',
    scope: 'memory.read',
  },
  {
    client: 'Claude Code, dynamic registration',
    registration: {
      client_name: 'Claude Code (engram)',
      redirect_uris: ['http://localhost:54321/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUri: 'http://localhost:54321/callback',
    resource: 'mcp',
    scope: 'memory.read',
  },
  {
    client: 'Claude Code, client ID metadata document',
    documentUrl: 'https://claude.ai/oauth/claude-code-client-metadata',
    registration: {
      client_id: 'https://claude.ai/oauth/claude-code-client-metadata',
      client_name: 'Claude Code',
      redirect_uris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUri: 'http://localhost:51234/callback',
    resource: 'mcp',
    scope: 'memory.read',
  },
  {
    client: 'VS Code (desktop, ephemeral loopback port)',
    registration: {
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://localhost',
        'http://127.0.0.1',
        'http://localhost:33418',
        'http://127.0.0.1:33418',
      ],
      scope: 'memory.read',
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
    redirectUri: 'http://127.0.0.1:59656/',
    resource: 'mcp',
    scope: 'memory.read',
  },
  {
    client: 'VS Code (vscode.dev redirect)',
    registration: {
      client_name: 'Visual Studio Code',
      client_uri: 'https://code.visualstudio.com',
      grant_types: ['authorization_code'],
      response_types: ['code'],
      redirect_uris: [
        'https://insiders.vscode.dev/redirect',
        'https://vscode.dev/redirect',
        'http://localhost',
        'http://127.0.0.1',
      ],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    },
    redirectUri: 'https://vscode.dev/redirect',
    resource: 'origin/',
  },
  {
    client: 'Cursor (private-use scheme)',
    registration: {
      client_name: 'Cursor',
      redirect_uris: [
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'https://www.cursor.com/agents/mcp/oauth/callback',
        'http://localhost:8787/callback',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUri: 'cursor://anysphere.cursor-mcp/oauth/callback',
    resource: 'none',
    scope: 'memory.read',
  },
  {
    client: 'Cursor Agents (hosted callback)',
    registration: {
      client_name: 'Cursor',
      redirect_uris: [
        'cursor://anysphere.cursor-mcp/oauth/callback',
        'https://www.cursor.com/agents/mcp/oauth/callback',
        'http://localhost:8787/callback',
      ],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    },
    redirectUri: 'https://www.cursor.com/agents/mcp/oauth/callback',
    resource: 'mcp',
  },
  {
    client: 'ChatGPT, dynamic registration (per-connector callback)',
    registration: {
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector/oauth/OUbdUMlL15Ct'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      scope: 'memory.read',
    },
    redirectUri: 'https://chatgpt.com/connector/oauth/OUbdUMlL15Ct',
    resource: 'mcp',
    scope: 'memory.read',
    basic: true,
  },
  {
    client: 'ChatGPT, client ID metadata document',
    documentUrl: 'https://chatgpt.com/oauth/client.json',
    registration: {
      client_id: 'https://chatgpt.com/oauth/client.json',
      client_name: 'ChatGPT',
      redirect_uris: ['https://chatgpt.com/connector_platform_oauth_redirect'],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'private_key_jwt',
    },
    redirectUri: 'https://chatgpt.com/connector_platform_oauth_redirect',
    resource: 'mcp',
    scope: 'memory.read offline_access',
  },
  {
    client: 'MCP Inspector',
    registration: {
      redirect_uris: ['http://localhost:6274/oauth/callback', 'http://localhost:6274/oauth/callback/debug'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'MCP Inspector',
      client_uri: 'https://github.com/modelcontextprotocol/inspector',
      scope: '',
    },
    redirectUri: 'http://localhost:6274/oauth/callback',
    resource: 'mcp',
    scope: 'memory.read',
  },
];

let net: FakeInternet;
let server: TestServer;
let owner: Owner;

beforeAll(async () => {
  net = new FakeInternet();
  server = await startTestServer({ clientMetadata: { lookup: net.lookup, fetch: net.fetch } });
  owner = await ownerWithBrowser(server, ['work', 'health']);
});

afterAll(async () => {
  await server.close();
});

function resourceOf(shape: Shape): string | null {
  const base = server.site.baseUrl;
  return { none: null, origin: base, 'origin/': `${base}/`, mcp: `${base}/mcp-http` }[shape.resource];
}

describe('client shapes, each through to a token', () => {
  it.each(SHAPES.map((s) => [s.client, s] as const))('%s', async (_, shape) => {
    let clientId: string;
    if (shape.documentUrl) {
      net.serveJson(shape.documentUrl, shape.registration, { 'cache-control': 'max-age=3600' });
      clientId = shape.documentUrl;
    } else {
      const reg = await register(server, shape.registration);
      expect(reg.status).toBe(201);
      expect(reg.body.token_endpoint_auth_method).toBe('none');
      expect(reg.body.grant_types).toEqual(['authorization_code']);
      clientId = reg.body.client_id;
    }
    const p = pkce();
    const resource = resourceOf(shape);
    const state = crypto.randomUUID();
    const path = authorizeQuery({
      clientId,
      redirectUri: shape.redirectUri,
      challenge: p.challenge,
      state,
      resource,
      scope: shape.scope,
    });
    const consent = await owner.browser.fetch(path);
    expect(consent.status).toBe(200);
    const target = new URL(shape.redirectUri);
    const formTarget = target.protocol.startsWith('http') ? target.origin : target.protocol;
    expect(consent.headers.get('content-security-policy')).toContain(`form-action 'self' ${formTarget}`);

    const back = await decide(owner.browser, path, { containers: [owner.containers.work!], profile: true });
    const returned = `${back.protocol}//${back.host}${back.pathname}`;
    expect(returned).toBe(
      shape.redirectUri.startsWith('cursor:') ? shape.redirectUri : new URL(shape.redirectUri).href,
    );
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('iss')).toBe(server.site.baseUrl);

    const params: Record<string, string> = {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: shape.redirectUri,
      code_verifier: p.verifier,
    };
    if (resource) params.resource = resource;
    let res: { status: number; body: any };
    if (shape.basic) {
      const answer = await fetch(`${server.url}/oauth/token`, {
        method: 'POST',
        headers: {
          'Content-Type': 'application/x-www-form-urlencoded',
          Authorization: `Basic ${Buffer.from(`${encodeURIComponent(clientId)}:`).toString('base64')}`,
        },
        body: new URLSearchParams(params),
      });
      res = { status: answer.status, body: await answer.json() };
    } else {
      res = await tokenRequest(server, { ...params, client_id: clientId });
    }
    expect(res.status).toBe(200);
    expect(res.body.token_type).toBe('Bearer');
    expect(res.body.refresh_token).toBeUndefined();
    expect(await mcpTools(server, res.body.access_token)).toEqual([
      'list_containers',
      'search_memories',
      'get_profile',
    ]);
  });
});

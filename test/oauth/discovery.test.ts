/**
 * Discovery: protected-resource metadata (RFC 9728) and authorization-server metadata (RFC 8414),
 * every URL from the configured public base URL and never from Host, JSON always, open CORS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { startTestServer, type TestServer } from '../helpers/server';
import { authorizeQuery, decide, mcpCall, ownerWithBrowser, pkce, registerClientId, tokenRequest } from './helpers';

const PUBLIC = 'https://memory.example.org';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_PUBLIC_URL: PUBLIC } });
});

afterAll(async () => {
  await server.close();
});

/** GET with a forged Host and a foreign Origin, as a page of another site would send it. */
async function get(path: string, init: RequestInit = {}) {
  const res = await fetch(`${server.url}${path}`, {
    ...init,
    headers: { Host: 'evil.example:666', Origin: 'https://app.example', ...init.headers },
  });
  return { status: res.status, headers: res.headers, body: await res.json() };
}

describe('protected-resource metadata', () => {
  it('describes /mcp-http at /.well-known/oauth-protected-resource/mcp-http', async () => {
    const res = await get('/.well-known/oauth-protected-resource/mcp-http');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({
      resource: `${PUBLIC}/mcp-http`,
      authorization_servers: [PUBLIC],
      bearer_methods_supported: ['header'],
      resource_name: 'Engram memory',
      scopes_supported: ['memory.read'],
    });
  });

  it('describes the origin at the root /.well-known/oauth-protected-resource, with the same scopes', async () => {
    const res = await get('/.well-known/oauth-protected-resource');
    expect(res.status).toBe(200);
    expect(res.body.resource).toBe(PUBLIC);
    expect(res.body.authorization_servers).toEqual([PUBLIC]);
    expect(res.body.scopes_supported).toEqual(['memory.read']);
    expect(res.body.bearer_methods_supported).toEqual(['header']);
    expect(res.body.resource_name).toBe('Engram memory');
  });

  it('is what the 401 of /mcp-http points at', async () => {
    const res = await fetch(`${server.url}/mcp-http`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Host: 'evil.example' },
      body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${PUBLIC}/.well-known/oauth-protected-resource/mcp-http"`,
    );
  });
});

describe('authorization-server metadata', () => {
  it('names the issuer exactly as the base URL and every endpoint under it', async () => {
    const res = await get('/.well-known/oauth-authorization-server');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toMatchObject({
      issuer: PUBLIC,
      authorization_endpoint: `${PUBLIC}/oauth/authorize`,
      token_endpoint: `${PUBLIC}/oauth/token`,
      registration_endpoint: `${PUBLIC}/oauth/register`,
      revocation_endpoint: `${PUBLIC}/oauth/revoke`,
      code_challenge_methods_supported: ['S256'],
      grant_types_supported: ['authorization_code'],
      response_types_supported: ['code'],
      authorization_response_iss_parameter_supported: true,
      client_id_metadata_document_supported: true,
    });
    expect(res.body.token_endpoint_auth_methods_supported).toContain('none');
    expect(res.body.scopes_supported).not.toContain('offline_access');
  });
});

describe('as an MCP 2026-07-28 client checks it', () => {
  it('leads from the 401 to metadata at the issuer’s own well-known URL whose issuer is that URL, character for character, and so is iss', async () => {
    const plain = await startTestServer();
    try {
      const challenge = await fetch(`${plain.url}/mcp-http`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}',
      });
      const resourceMetadata = /resource_metadata="([^"]+)"/.exec(challenge.headers.get('www-authenticate') ?? '')![1]!;
      const prm = (await (await fetch(resourceMetadata)).json()) as { authorization_servers: string[] };
      const [issuer] = prm.authorization_servers;
      expect(issuer).toBe(plain.url);
      // RFC 8414 §3.1: the well-known URL is built from the issuer; §3.3: the issuer in it must be identical.
      const metadata = (await (await fetch(`${issuer}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      expect(metadata.issuer).toBe(issuer!);
      const owner = await ownerWithBrowser(plain, ['work']);
      const clientId = await registerClientId(plain, ['http://127.0.0.1:7777/callback']);
      const back = await decide(
        owner.browser,
        authorizeQuery({
          clientId,
          redirectUri: 'http://127.0.0.1:7777/callback',
          challenge: pkce().challenge,
          state: 's',
        }),
        { containers: [owner.containers.work!] },
      );
      expect(back.searchParams.get('iss')).toBe(issuer!);
    } finally {
      await plain.close();
    }
  });

  it('names the same issuer when ENGRAM_PUBLIC_URL is given with a final slash', async () => {
    const slashed = await startTestServer({ env: { ENGRAM_PUBLIC_URL: `${PUBLIC}/` } });
    try {
      const metadata = (await (await fetch(`${slashed.url}/.well-known/oauth-authorization-server`)).json()) as {
        issuer: string;
      };
      const prm = (await (await fetch(`${slashed.url}/.well-known/oauth-protected-resource/mcp-http`)).json()) as {
        authorization_servers: string[];
      };
      expect(metadata.issuer).toBe(PUBLIC);
      expect(prm.authorization_servers).toEqual([PUBLIC]);
    } finally {
      await slashed.close();
    }
  });
});

describe('JSON and CORS', () => {
  it('answers CORS for any origin, without credentials, on the documents, registration and token endpoints', async () => {
    for (const path of [
      '/.well-known/oauth-protected-resource/mcp-http',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource',
    ]) {
      const res = await get(path);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
    for (const path of [
      '/oauth/register',
      '/oauth/token',
      '/oauth/revoke',
      '/.well-known/oauth-authorization-server',
    ]) {
      const res = await fetch(`${server.url}${path}`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://app.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
      expect(res.status).toBeLessThan(300);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
      expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    }
    const token = await fetch(`${server.url}/oauth/token`, {
      method: 'POST',
      headers: { Origin: 'https://app.example' },
      body: 'grant_type=nope',
    });
    expect(token.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a JSON 404 (with CORS) where it serves nothing, never an HTML page', async () => {
    for (const path of [
      '/.well-known/openid-configuration',
      '/.well-known/oauth-authorization-server/mcp-http',
      '/.well-known/oauth-protected-resource/other',
    ]) {
      const res = await get(path);
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      expect(res.body.code).toBe('not_found');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('returns iss as the base URL, binds tokens to {base_url}/mcp-http, and marks the cookie Secure over https', async () => {
    const owner = await ownerWithBrowser(server, ['work']);
    expect(owner.browser.cookies.has('engram_session')).toBe(true);
    const clientId = await registerClientId(server, ['https://app.example/cb']);
    const p = pkce();
    const page = await owner.browser.fetch(
      authorizeQuery({
        clientId,
        redirectUri: 'https://app.example/cb',
        challenge: p.challenge,
        resource: `${PUBLIC}/mcp-http`,
      }),
    );
    expect(page.status).toBe(200);
    const back = await decide(
      owner.browser,
      authorizeQuery({ clientId, redirectUri: 'https://app.example/cb', challenge: p.challenge, resource: PUBLIC }),
      {
        containers: [owner.containers.work!],
      },
    );
    expect(back.searchParams.get('iss')).toBe(PUBLIC);
    const token = await tokenRequest(server, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code')!,
      redirect_uri: 'https://app.example/cb',
      client_id: clientId,
      code_verifier: p.verifier,
    });
    expect(token.status).toBe(200);
    expect((await mcpCall(server, token.body.access_token, 'tools/list')).status).toBe(200);
    const signIn = await fetch(`${server.url}/sign-in`);
    expect(signIn.headers.getSetCookie().join()).toContain('Secure');
  });
});

/**
 * A browser MCP client on /mcp-http, in real Chromium: a page served from a second local origin
 * listed in ENGRAM_ALLOWED_ORIGINS calls the server with fetch (preflights included), reads the
 * challenge on a 401, follows it to the discovery documents, registers, initializes and lists its
 * tools; the same script on a page from an origin not listed is refused by the browser itself.
 *
 * Chromium is installed by scripts/ensure-chromium.sh when missing; only when that is impossible
 * (no root, no apt) is the suite skipped, loudly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { Browser } from 'playwright-core';
import { browserAvailable, launchChromium } from '../helpers/browser';
import { makeKey, makeOwner, startTestServer, type TestServer } from '../helpers/server';

/** Launching Chromium and loading a page can take seconds on a busy machine. */
const BROWSER_MS = 30_000;

/** What the page's script saw: each step's status and the headers it could read, or the error fetch threw. */
interface Seen {
  challenge?: { status: number; wwwAuthenticate: string | null };
  resourceMetadata?: { status: number; authorizationServers: string[] };
  serverMetadata?: { status: number; registrationEndpoint: string };
  registration?: { status: number; clientId: string };
  initialize?: { status: number; protocolVersion: string; serverName: string };
  tools?: { status: number; names: string[] };
  stream?: { status: number };
  error?: string;
}

/**
 * The browser MCP client, run inside the page: plain fetch, the headers the Streamable HTTP
 * transport sends (Authorization, Content-Type and MCP-Protocol-Version force preflights).
 */
async function browserClient([mcpUrl, key]: [string, string]): Promise<Seen> {
  const seen: Seen = {};
  const rpc = (method: string, id: number, params: object, headers: Record<string, string> = {}) =>
    fetch(mcpUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    });
  try {
    const challenge = await rpc('initialize', 0, {}, { 'MCP-Protocol-Version': '2025-11-25' });
    seen.challenge = { status: challenge.status, wwwAuthenticate: challenge.headers.get('WWW-Authenticate') };
    const metadataUrl = /resource_metadata="([^"]+)"/.exec(seen.challenge.wwwAuthenticate ?? '')?.[1];
    if (metadataUrl) {
      const prm = await fetch(metadataUrl, { headers: { 'MCP-Protocol-Version': '2025-11-25' } });
      const prmBody = await prm.json();
      seen.resourceMetadata = { status: prm.status, authorizationServers: prmBody.authorization_servers };
      const asm = await fetch(`${prmBody.authorization_servers[0]}/.well-known/oauth-authorization-server`, {
        headers: { 'MCP-Protocol-Version': '2025-11-25' },
      });
      const asmBody = await asm.json();
      seen.serverMetadata = { status: asm.status, registrationEndpoint: asmBody.registration_endpoint };
      const reg = await fetch(asmBody.registration_endpoint, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          client_name: 'Browser MCP client',
          redirect_uris: [`${location.origin}/callback`],
          token_endpoint_auth_method: 'none',
        }),
      });
      seen.registration = { status: reg.status, clientId: (await reg.json()).client_id };
    }
    const auth = { Authorization: `Bearer ${key}` };
    const init = await rpc(
      'initialize',
      1,
      { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'browser', version: '1.0.0' } },
      auth,
    );
    const initBody = await init.json();
    seen.initialize = {
      status: init.status,
      protocolVersion: initBody.result?.protocolVersion,
      serverName: initBody.result?.serverInfo?.name,
    };
    const list = await rpc('tools/list', 2, {}, { ...auth, 'MCP-Protocol-Version': '2025-11-25' });
    seen.tools = {
      status: list.status,
      names: ((await list.json()).result?.tools ?? []).map((t: { name: string }) => t.name),
    };
    // The transport's optional GET for a server-sent stream: a readable 405, not a network error.
    const stream = await fetch(mcpUrl, {
      headers: { ...auth, Accept: 'text/event-stream', 'MCP-Protocol-Version': '2025-11-25' },
    });
    seen.stream = { status: stream.status };
  } catch (err) {
    seen.error = `${(err as Error).name}: ${(err as Error).message}`;
  }
  return seen;
}

describe.skipIf(!browserAvailable)('/mcp-http from web pages in Chromium', () => {
  let server: TestServer;
  let browser: Browser;
  let allowedSite: ReturnType<typeof Bun.serve>;
  let foreignSite: ReturnType<typeof Bun.serve>;
  let key: string;

  /** A site whose only page is a blank document: the tests run their script in it. */
  const site = () =>
    Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: () =>
        new Response('<!doctype html><title>Browser MCP client</title><p>client</p>', {
          headers: { 'content-type': 'text/html' },
        }),
    });

  beforeAll(async () => {
    allowedSite = site();
    foreignSite = site();
    server = await startTestServer({ env: { ENGRAM_ALLOWED_ORIGINS: `http://127.0.0.1:${allowedSite.port}` } });
    const owner = (await makeOwner(server)).token;
    key = (await makeKey(server, owner, { level: 'read', all_views: true })).key;
    browser = await launchChromium();
  }, BROWSER_MS);

  afterAll(async () => {
    await browser?.close();
    await allowedSite?.stop(true);
    await foreignSite?.stop(true);
    await server?.close();
  });

  async function runFrom(siteUrl: string): Promise<Seen> {
    const page = await browser.newPage();
    await page.goto(siteUrl);
    const seen = await page.evaluate(browserClient, [`${server.url}/mcp-http`, key] as [string, string]);
    await page.close();
    return seen;
  }

  it(
    'lets a page on an allowed origin read the challenge, discover, register, initialize and list its tools',
    async () => {
      const seen = await runFrom(`http://127.0.0.1:${allowedSite.port}/`);
      expect(seen.error).toBeUndefined();
      expect(seen.challenge).toEqual({
        status: 401,
        wwwAuthenticate: `Bearer error="invalid_token", resource_metadata="${server.site.baseUrl}/.well-known/oauth-protected-resource/mcp-http"`,
      });
      expect(seen.resourceMetadata).toEqual({ status: 200, authorizationServers: [server.site.baseUrl] });
      expect(seen.serverMetadata).toEqual({
        status: 200,
        registrationEndpoint: `${server.site.baseUrl}/oauth/register`,
      });
      expect(seen.registration?.status).toBe(201);
      expect(seen.registration?.clientId).toBeTruthy();
      expect(seen.initialize).toEqual({ status: 200, protocolVersion: '2025-11-25', serverName: 'engram' });
      expect(seen.tools).toEqual({
        status: 200,
        names: ['list_containers', 'search_memories', 'list_documents', 'memory_rules'],
      });
      expect(seen.stream).toEqual({ status: 405 });
    },
    BROWSER_MS,
  );

  it(
    'refuses a page on an origin not listed: the browser blocks the call and reads nothing',
    async () => {
      const seen = await runFrom(`http://127.0.0.1:${foreignSite.port}/`);
      expect(seen.error).toMatch(/^TypeError: Failed to fetch/);
      expect(seen.challenge).toBeUndefined();
      expect(seen.initialize).toBeUndefined();
    },
    BROWSER_MS,
  );
});

/**
 * The Streamable HTTP edges of /mcp-http, with raw fetch: methods, Origin, MCP-Protocol-Version,
 * batches, version negotiation, and that the server stays stateless (no Mcp-Session-Id, ever).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let key: string;
/** Every response seen here; none may carry an Mcp-Session-Id. */
const seen: Response[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_ALLOWED_ORIGINS: 'https://app.example.org' } });
  const owner = (await makeOwner(server)).token;
  key = (await makeKey(server, owner, { level: 'read', all_views: true })).key;
});
afterAll(async () => {
  await server.close();
});

interface PostOptions {
  headers?: Record<string, string>;
  token?: string | null;
}

/** One POST to /mcp-http with the headers a Streamable HTTP client sends, overridable. */
async function post(
  body: unknown,
  options: PostOptions = {},
): Promise<{ status: number; headers: Headers; body: any }> {
  const token = options.token === undefined ? key : options.token;
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  const res = await fetch(`${server.url}/mcp-http`, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  seen.push(res);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const initialize = (protocolVersion: string, id = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw-fetch', version: '1.0.0' } },
});
const listTools = (id = 2) => ({ jsonrpc: '2.0', id, method: 'tools/list', params: {} });

describe('HTTP methods', () => {
  for (const method of ['GET', 'DELETE']) {
    it(`answers ${method} with 405 and Allow: POST, with or without a key`, async () => {
      for (const auth of [{ Authorization: `Bearer ${key}` }, {}] as Record<string, string>[]) {
        const res = await fetch(`${server.url}/mcp-http`, {
          method,
          headers: { Accept: 'text/event-stream', ...auth },
        });
        seen.push(res);
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe('POST');
        expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
      }
    });
  }

  it('answers a POST with a JSON response, not an event stream', async () => {
    const res = await post(listTools());
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body.result.tools.length).toBeGreaterThan(0);
  });
});

describe('Origin (DNS-rebinding defence)', () => {
  it('refuses a foreign Origin with 403, before looking at the credential', async () => {
    for (const token of [key, null]) {
      const res = await post(listTools(), { token, headers: { Origin: 'http://evil.example.com' } });
      expect(res.status).toBe(403);
      expect(res.body.error.message).toBe('Origin http://evil.example.com is not allowed.');
    }
  });

  it("answers the refusal with the request's id when the body has one, null when it has none", async () => {
    for (const id of [21, 'req-22']) {
      const res = await post(listTools(id as number), { headers: { Origin: 'http://evil.example.com' } });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id,
        error: { code: -32000, message: 'Origin http://evil.example.com is not allowed.' },
      });
    }
    for (const body of ['{"jsonrpc": "2.0", ', { jsonrpc: '2.0', method: 'notifications/initialized' }]) {
      const res = await post(body, { headers: { Origin: 'http://evil.example.com' } });
      expect(res.status).toBe(403);
      expect(res.body.id).toBeNull();
    }
  });

  it('refuses a loopback Origin on another port, and a look-alike', async () => {
    for (const origin of ['http://127.0.0.1:1', 'http://localhost.evil.example', 'null']) {
      expect((await post(listTools(), { headers: { Origin: origin } })).status).toBe(403);
    }
  });

  it('accepts no Origin (a non-browser client)', async () => {
    expect((await post(listTools())).status).toBe(200);
  });

  it("accepts the server's own origin in every loopback spelling, and a configured one", async () => {
    const port = new URL(server.url).port;
    for (const origin of [
      `http://127.0.0.1:${port}`,
      `http://localhost:${port}`,
      `http://[::1]:${port}`,
      'https://app.example.org',
    ]) {
      const res = await post(listTools(), { headers: { Origin: origin } });
      expect(res.status).toBe(200);
    }
  });
});

describe('CORS for browser clients', () => {
  const preflight = (origin: string, method = 'POST') =>
    fetch(`${server.url}/mcp-http`, {
      method: 'OPTIONS',
      headers: {
        Origin: origin,
        'Access-Control-Request-Method': method,
        'Access-Control-Request-Headers': 'authorization,content-type,mcp-protocol-version',
      },
    });
  const corsHeaders = (headers: Headers) => [...headers.keys()].filter((name) => name.startsWith('access-control-'));

  it('answers a preflight from an allowed origin with its methods and headers, varying on Origin', async () => {
    const res = await preflight('https://app.example.org');
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBe('GET,POST,DELETE,OPTIONS');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'Authorization,Content-Type,Mcp-Protocol-Version,Mcp-Method,Mcp-Name,Mcp-Session-Id,Last-Event-ID,Idempotency-Key',
    );
    expect(res.headers.get('vary')).toContain('Origin');
  });

  it('exposes WWW-Authenticate, Mcp-Protocol-Version and Mcp-Session-Id to an allowed origin, on a 401 and a 200', async () => {
    for (const token of [null, key]) {
      const res = await post(listTools(), { token, headers: { Origin: 'https://app.example.org' } });
      expect(res.status).toBe(token ? 200 : 401);
      expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
      expect(res.headers.get('access-control-expose-headers')?.split(',')).toEqual(
        expect.arrayContaining(['WWW-Authenticate', 'Mcp-Protocol-Version', 'Mcp-Session-Id']),
      );
      expect(res.headers.get('vary')).toContain('Origin');
    }
  });

  it('answers no CORS header at all to another origin: its preflight is 403, like its POST', async () => {
    for (const origin of ['http://evil.example.com', 'null', 'https://app.example.org.evil.example']) {
      const res = await preflight(origin);
      expect(res.status).toBe(403);
      expect(corsHeaders(res.headers)).toEqual([]);
      expect(res.headers.get('vary')).toContain('Origin');
      const refused = await post(listTools(), { headers: { Origin: origin } });
      expect(refused.status).toBe(403);
      expect(corsHeaders(refused.headers)).toEqual([]);
    }
  });
});

describe('MCP-Protocol-Version header', () => {
  it('answers 400 UnsupportedProtocolVersion (-32022) to a version it does not support, naming the per-request one it does', async () => {
    for (const version of ['2099-01-01', 'banana', '2025-01-01']) {
      const res = await post(listTools(9), { headers: { 'MCP-Protocol-Version': version } });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        jsonrpc: '2.0',
        id: 9,
        error: {
          code: -32022,
          message: `Unsupported protocol version: ${version}`,
          data: { supported: ['2026-07-28'], requested: version },
        },
      });
    }
  });

  it('works without the header (read as 2025-03-26) and with each supported version', async () => {
    expect((await post(listTools())).body.result.tools.length).toBeGreaterThan(0);
    for (const version of ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05']) {
      const res = await post(listTools(), { headers: { 'MCP-Protocol-Version': version } });
      expect(res.status).toBe(200);
      expect(res.body.result.tools.length).toBeGreaterThan(0);
    }
  });
});

describe('JSON-RPC framing', () => {
  it('refuses a batch with 400', async () => {
    const res = await post([initialize('2025-06-18', 1), listTools(2)]);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'JSON-RPC batches are not supported.' },
    });
    expect((await post([listTools(3)])).status).toBe(400);
  });

  it('refuses a body that is not JSON with 400 -32700', async () => {
    const res = await post('{"jsonrpc": "2.0", ');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe(-32700);
  });

  it('answers a transport-level error with the id of the request whenever the body had one', async () => {
    const version = await post(listTools(41), { headers: { 'MCP-Protocol-Version': '2099-01-01' } });
    expect(version.status).toBe(400);
    expect(version.body).toMatchObject({ jsonrpc: '2.0', id: 41, error: { code: -32022 } });
    const invalid = await post({ jsonrpc: '2.0', id: 'req-42', method: 7 });
    expect(invalid.status).toBe(400);
    expect(invalid.body).toMatchObject({ jsonrpc: '2.0', id: 'req-42', error: { code: -32600 } });
    const accept = await post(listTools(43), { headers: { Accept: 'application/json' } });
    expect(accept.status).toBe(406);
    expect(accept.body.id).toBe(43);
    // No id to give: a notification, or an id that is not a string or a number.
    expect(
      (
        await post(
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { headers: { 'MCP-Protocol-Version': 'banana' } },
        )
      ).body.id,
    ).toBeNull();
    expect((await post({ jsonrpc: '2.0', id: { x: 1 }, method: 'tools/list' })).body.id).toBeNull();
  });

  it('answers a tools/call whose name is not a string, or whose arguments are not an object, with -32602 in words', async () => {
    const cases: [unknown, string][] = [
      [
        { name: 7, arguments: {} },
        "Invalid params: tools/call needs params.name, the tool's name, as a string; got a number.",
      ],
      [
        { arguments: { q: 'x' } },
        "Invalid params: tools/call needs params.name, the tool's name, as a string; got nothing.",
      ],
      [
        { name: 'search_memories', arguments: 'oatmeal' },
        "Invalid params: params.arguments must be an object holding the tool's arguments by name; got a string.",
      ],
      [
        { name: 'search_memories', arguments: ['oatmeal'] },
        "Invalid params: params.arguments must be an object holding the tool's arguments by name; got an array.",
      ],
      [
        { name: 'search_memories', arguments: null },
        "Invalid params: params.arguments must be an object holding the tool's arguments by name; got null.",
      ],
      ['search_memories', 'Invalid params: tools/call needs params as an object; got a string.'],
    ];
    for (const [params, message] of cases) {
      const res = await post({ jsonrpc: '2.0', id: 'bad', method: 'tools/call', params });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ jsonrpc: '2.0', id: 'bad', error: { code: -32602, message } });
    }
  });

  it('answers a notification with 202 and no body', async () => {
    const res = await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
    expect(res.status).toBe(202);
    expect(res.body).toBeNull();
  });

  it('answers ping', async () => {
    const res = await post({ jsonrpc: '2.0', id: 7, method: 'ping' });
    expect(res.body).toEqual({ jsonrpc: '2.0', id: 7, result: {} });
  });

  it('answers a method it does not serve with -32601', async () => {
    const res = await post({ jsonrpc: '2.0', id: 8, method: 'completion/complete', params: {} });
    expect(res.status).toBe(200);
    expect(res.body.error.code).toBe(-32601);
  });
});

describe('initialize and version negotiation', () => {
  for (const version of ['2025-11-25', '2025-06-18']) {
    it(`negotiates ${version} as requested`, async () => {
      const res = await post(initialize(version));
      expect(res.status).toBe(200);
      expect(res.body.result.protocolVersion).toBe(version);
      expect(res.body.result.serverInfo.name).toBe('engram');
      expect(res.body.result.capabilities).toEqual({ tools: {}, resources: {}, prompts: {} });
    });
  }

  it('negotiates an older supported version as requested', async () => {
    for (const version of ['2025-03-26', '2024-11-05']) {
      expect((await post(initialize(version))).body.result.protocolVersion).toBe(version);
    }
  });

  it('answers an unknown (future) version with its latest', async () => {
    for (const version of ['2026-07-28', '2099-12-31']) {
      expect((await post(initialize(version))).body.result.protocolVersion).toBe('2025-11-25');
    }
  });

  it('needs no initialize before tools/list: every request stands alone', async () => {
    const res = await post(listTools(), { headers: { 'MCP-Protocol-Version': '2025-11-25' } });
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'list_containers',
      'search_memories',
      'list_documents',
      'memory_rules',
    ]);
  });

  it('ignores an Mcp-Session-Id a client sends', async () => {
    const res = await post(listTools(), { headers: { 'Mcp-Session-Id': 'made-up-session' } });
    expect(res.status).toBe(200);
  });
});

it('never sent an Mcp-Session-Id header back', () => {
  expect(seen.length).toBeGreaterThan(30);
  for (const res of seen) expect(res.headers.get('mcp-session-id')).toBeNull();
});

/**
 * The 2026-07-28 revision on /mcp-http, with raw fetch: `server/discover`, every request carrying its
 * own `_meta` with no initialize and no session, the Mcp-Method / Mcp-Name headers checked against
 * the body, unknown methods 404 -32601, unsupported versions -32022; and the rules that hold in both
 * eras (the limiter, usage, the access log, idempotency keys, 401/403, the answer shapes), held
 * here for this one.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const VERSION = '2026-07-28';
const LIMIT = 40;
const META = {
  'io.modelcontextprotocol/protocolVersion': VERSION,
  'io.modelcontextprotocol/clientInfo': { name: 'raw-fetch', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

let server: TestServer;
let owner: string;
let notes: string;
let reader: { id: string; key: string };
let writer: { id: string; key: string };
/** Every response seen here; none may carry an Mcp-Session-Id. */
const seen: Response[] = [];

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: String(LIMIT) } });
  owner = (await makeOwner(server)).token;
  notes = await makeContainer(server, owner, 'Notes');
  const added = await call(server, 'POST', '/v1/documents', owner, {
    container: notes,
    content: 'The spare key is under the blue flower pot.',
  });
  expect(added.status).toBe(202);
  await server.learning.drain();
  reader = await makeKey(server, owner, { level: 'read', containers: [notes] });
  writer = await makeKey(server, owner, { level: 'suggest', containers: [notes] });
});
afterAll(async () => {
  await server.close();
});

interface Rpc {
  id?: string | number;
  method: string;
  params?: Record<string, unknown>;
}

/** A 2026-07-28 request: `_meta` in the body, the version and method (and name or uri) mirrored in the headers, unless overridden. */
async function send(
  rpc: Rpc,
  options: { token?: string | null; headers?: Record<string, string>; meta?: Record<string, unknown> | null } = {},
) {
  const token = options.token === undefined ? reader.key : options.token;
  const own = rpc.params?._meta as Record<string, unknown> | undefined;
  const params = { ...rpc.params, ...(options.meta === null ? {} : { _meta: { ...META, ...own, ...options.meta } }) };
  // Mcp-Name mirrors what the request names: a tool or prompt by name, a resource by uri.
  const named = rpc.params?.name ?? rpc.params?.uri;
  const name: Record<string, string> = typeof named === 'string' ? { 'Mcp-Name': named } : {};
  const headers: Record<string, string> = {
    'Content-Type': 'application/json',
    Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': VERSION,
    'Mcp-Method': rpc.method,
    ...name,
    ...(token ? { Authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  const body = { jsonrpc: '2.0', ...(rpc.id === undefined ? {} : { id: rpc.id }), method: rpc.method, params };
  const res = await fetch(`${server.url}/mcp-http`, { method: 'POST', headers, body: JSON.stringify(body) });
  seen.push(res);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

const SERVER_INFO = { 'io.modelcontextprotocol/serverInfo': { name: 'engram', version: expect.any(String) } };

describe('server/discover', () => {
  it("answers the supported revision, tools, the caller's instructions, caching fields and serverInfo", async () => {
    const res = await send({ id: 'd1', method: 'server/discover' });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'd1',
      result: {
        resultType: 'complete',
        supportedVersions: [VERSION],
        capabilities: { tools: {}, resources: {}, prompts: {} },
        instructions: expect.stringContaining('Call memory_rules first'),
        ttlMs: 60_000,
        cacheScope: 'private',
        _meta: SERVER_INFO,
      },
    });
  });

  it('needs a credential like every request: 401 with the challenge', async () => {
    const res = await send({ id: 1, method: 'server/discover' }, { token: null });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('resource_metadata=');
    expect(res.body.error).toBe('invalid_token');
  });
});

describe('tools, with no initialize and no session', () => {
  it('lists the credential’s tools with caching fields, private to it', async () => {
    const res = await send({ id: 2, method: 'tools/list' });
    expect(res.status).toBe(200);
    expect(res.body.result.tools.map((t: { name: string }) => t.name)).toEqual([
      'list_containers',
      'search_memories',
      'list_documents',
      'memory_rules',
    ]);
    expect(res.body.result).toMatchObject({
      resultType: 'complete',
      ttlMs: 60_000,
      cacheScope: 'private',
      _meta: SERVER_INFO,
    });
  });

  it('answers a call with what REST answers, as text and structuredContent, resultType complete', async () => {
    const args = { q: 'where is the spare key', container: notes };
    const res = await send({ id: 3, method: 'tools/call', params: { name: 'search_memories', arguments: args } });
    const rest = await call(server, 'POST', '/v1/search', reader.key, args);
    expect(res.body.result.resultType).toBe('complete');
    expect(res.body.result.structuredContent).toEqual(rest.body);
    expect(JSON.parse(res.body.result.content[0].text)).toEqual(rest.body);
    expect(rest.body.results[0].content).toContain('blue flower pot');
  });

  it('answers a broken rule and an unknown tool as tool errors with the envelope, as in the handshake era', async () => {
    const empty = await send({
      id: 4,
      method: 'tools/call',
      params: { name: 'search_memories', arguments: { q: '' } },
    });
    expect(empty.body.result).toMatchObject({ isError: true, structuredContent: { code: 'validation' } });
    const unknown = await send({ id: 5, method: 'tools/call', params: { name: 'no_such_tool', arguments: {} } });
    expect(unknown.body.result).toMatchObject({
      isError: true,
      structuredContent: { code: 'not_found', message: 'No tool named no_such_tool.' },
    });
  });

  it('answers a call whose name is not a string, or whose arguments are not an object, with -32602 in words', async () => {
    const name = await send(
      { id: 'n', method: 'tools/call', params: { name: 7, arguments: {} } },
      { headers: { 'Mcp-Name': '7' } },
    );
    expect(name.body).toEqual({
      jsonrpc: '2.0',
      id: 'n',
      error: {
        code: -32602,
        message: "Invalid params: tools/call needs params.name, the tool's name, as a string; got a number.",
      },
    });
    const args = await send({ id: 'a', method: 'tools/call', params: { name: 'search_memories', arguments: 'key' } });
    expect(args.body).toEqual({
      jsonrpc: '2.0',
      id: 'a',
      error: {
        code: -32602,
        message:
          "Invalid params: params.arguments must be an object holding the tool's arguments by name; got a string.",
      },
    });
  });

  it('refuses a tool outside the grant with HTTP 403 and the refusal in JSON-RPC, and counts it in the key’s usage', async () => {
    const res = await send({
      id: 6,
      method: 'tools/call',
      params: { name: 'add_memory', arguments: { content: 'x' } },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.body).toMatchObject({
      jsonrpc: '2.0',
      id: 6,
      error: {
        code: -32000,
        message: "The tool add_memory is not in this credential's capability profile.",
        data: { code: 'unauthorized', details: { tool: 'add_memory' }, retryable: false },
      },
    });
    expect(res.body.error.data.trace_id).toBe(res.headers.get('x-trace-id'));
    const usage = await call(server, 'GET', `/v1/api-keys/${reader.id}/usage`, owner);
    expect(usage.body.per_tool).toContainEqual({ tool: 'add_memory', calls: 1, refused: 1 });
    expect(usage.body.per_tool).toContainEqual(expect.objectContaining({ tool: 'search_memories' }));
  });

  it('carries an idempotency key in _meta: the same write sent twice is done once', async () => {
    const params = {
      name: 'add_document',
      arguments: { container: notes, content: 'Bins go out on Tuesday.' },
      _meta: { idempotency_key: 'bins-1' },
    };
    const first = await send({ id: 7, method: 'tools/call', params }, { token: writer.key });
    const again = await send({ id: 8, method: 'tools/call', params }, { token: writer.key });
    expect(first.body.result.isError).toBeUndefined();
    expect(again.body.result.structuredContent).toEqual(first.body.result.structuredContent);
    const docs = await call(server, 'GET', `/v1/documents?container=${notes}`, owner);
    expect(
      docs.body.documents.filter(
        (d: { title: string | null; id: string }) => d.id === first.body.result.structuredContent.id,
      ),
    ).toHaveLength(1);
    expect(docs.body.documents).toHaveLength(2);
  });

  it('writes what a call read into the key’s access log', async () => {
    await server.services.accessLog.flush();
    const log = await call(server, 'GET', `/v1/api-keys/${reader.id}/access-log`, owner);
    expect(log.status).toBe(200);
    expect(log.body.entries.map((e: { operation: string }) => e.operation)).toContain('search_memories');
  });
});

describe('the request headers and _meta', () => {
  it('refuses an Mcp-Method or Mcp-Name that disagrees with the body: 400 HeaderMismatch (-32020) with the id', async () => {
    const method = await send({ id: 10, method: 'tools/list' }, { headers: { 'Mcp-Method': 'tools/call' } });
    expect(method.status).toBe(400);
    expect(method.body).toMatchObject({ jsonrpc: '2.0', id: 10, error: { code: -32020 } });
    const name = await send(
      { id: 11, method: 'tools/call', params: { name: 'search_memories', arguments: { q: 'key' } } },
      { headers: { 'Mcp-Name': 'list_containers' } },
    );
    expect(name.status).toBe(400);
    expect(name.body).toMatchObject({ id: 11, error: { code: -32020 } });
  });

  it('refuses an MCP-Protocol-Version header that disagrees with _meta with HeaderMismatch', async () => {
    const res = await send({ id: 12, method: 'tools/list' }, { headers: { 'MCP-Protocol-Version': '2025-11-25' } });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 12, error: { code: -32020 } });
  });

  it('refuses a request missing a required _meta field with 400 -32602', async () => {
    const res = await send(
      { id: 13, method: 'tools/list' },
      { meta: { 'io.modelcontextprotocol/clientCapabilities': undefined } },
    );
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ id: 13, error: { code: -32602 } });
    expect(res.body.error.message).toContain('clientCapabilities');
  });

  it('answers an unsupported version with 400 UnsupportedProtocolVersion (-32022) listing the supported one', async () => {
    const res = await send(
      { id: 14, method: 'tools/list' },
      {
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
        headers: { 'MCP-Protocol-Version': '2099-01-01' },
      },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 14,
      error: {
        code: -32022,
        message: 'Unsupported protocol version: 2099-01-01',
        data: { supported: [VERSION], requested: '2099-01-01' },
      },
    });
  });

  it('answers a method it does not serve, and those the revision removed, with 404 -32601', async () => {
    for (const method of ['completion/complete', 'resources/subscribe', 'ping', 'logging/setLevel']) {
      const res = await send({ id: 15, method });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ id: 15, error: { code: -32601 } });
    }
  });

  it('answers subscriptions/listen with 404 -32601 in JSON, never an event stream: nothing is ever notified', async () => {
    const res = await send({
      id: 16,
      method: 'subscriptions/listen',
      params: { notifications: { toolsListChanged: true, promptsListChanged: true, resourcesListChanged: true } },
    });
    expect(res.status).toBe(404);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 16,
      error: {
        code: -32601,
        message:
          'Method not found: subscriptions/listen. Engram sends no notifications (no list or resource changes are announced), so there is nothing to listen for.',
      },
    });
  });
});

describe('resources and prompts, with no initialize and no session', () => {
  it('lists resources, their template and prompts with caching fields private to the credential; a read is not kept', async () => {
    for (const [method, field] of [
      ['resources/list', 'resources'],
      ['resources/templates/list', 'resourceTemplates'],
      ['prompts/list', 'prompts'],
    ] as const) {
      const res = await send({ id: method, method });
      expect(res.status).toBe(200);
      expect(res.body.result).toMatchObject({ resultType: 'complete', ttlMs: 60_000, cacheScope: 'private' });
      expect(res.body.result[field].length).toBeGreaterThan(0);
    }
    const read = await send({ id: 'r', method: 'resources/read', params: { uri: `engram://containers/${notes}` } });
    expect(read.status).toBe(200);
    expect(read.body.result).toMatchObject({ resultType: 'complete', ttlMs: 0, cacheScope: 'private' });
    expect(JSON.parse(read.body.result.contents[0].text).container.id).toBe(notes);
  });

  it('refuses a resource it may not read with -32602, the uri and the trace id in data', async () => {
    const uri = 'engram://profile';
    const res = await send({ id: 'p', method: 'resources/read', params: { uri } });
    expect(res.body).toEqual({
      jsonrpc: '2.0',
      id: 'p',
      error: {
        code: -32602,
        message: `The resource ${uri} may not be read with this credential.`,
        data: {
          uri,
          code: 'unauthorized',
          details: { uri },
          retryable: false,
          trace_id: expect.stringMatching(/^tr_/),
        },
      },
    });
    expect(res.status).toBe(200);
  });
});

describe('the per-credential limiter counts every request of this era', () => {
  it('answers server/discover and tools/list over the limit with HTTP 429 and the refusal in JSON-RPC; search still answers', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [notes] });
    for (let i = 0; i < LIMIT; i++)
      expect((await send({ id: i, method: i % 2 ? 'tools/list' : 'server/discover' }, { token: key })).status).toBe(
        200,
      );
    for (const method of ['server/discover', 'tools/list']) {
      const res = await send({ id: 'over', method }, { token: key });
      expect(res.status).toBe(429);
      expect(res.body).toMatchObject({
        id: 'over',
        error: { code: -32000, data: { code: 'rate_limited', details: { limit_per_min: LIMIT }, retryable: true } },
      });
    }
    const search = await send(
      { id: 'search', method: 'tools/call', params: { name: 'search_memories', arguments: { q: 'key' } } },
      { token: key },
    );
    expect(search.status).toBe(200);
    expect(search.body.result.isError).toBeUndefined();
  });
});

it('never sent an Mcp-Session-Id header back', () => {
  expect(seen.length).toBeGreaterThan(20);
  for (const res of seen) expect(res.headers.get('mcp-session-id')).toBeNull();
});

/**
 * `engram mcp` driven by the SDK's stdio client, and line by line as a desktop client writes, against
 * a real server started by the test. The bridge is started from `/`, as desktop clients start it:
 * not from the checkout. The clients of both eras are in test/e2e/mcp/eras.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { Client as ClientV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { MAX_BODY_BYTES } from '../../../src/http/middleware/body-limit';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

const ROOT = join(import.meta.dir, '../../..');

async function stdioClient(url: string, key: string, stderr: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [join(ROOT, 'src/main.ts'), 'mcp', '--url', url, '--key', key],
    stderr: 'pipe',
    cwd: '/',
    env: { PATH: process.env.PATH ?? '' },
  });
  transport.stderr?.on('data', (chunk) => stderr.push(String(chunk)));
  const client = new Client({ name: 'stdio-test', version: '1' });
  await client.connect(transport);
  return client;
}

/** The bridge driven by hand: lines written to its standard input, answers read from its standard output. */
interface RawBridge {
  write(line: string): Promise<void>;
  send(message: Record<string, unknown>): Promise<void>;
  /** The next message the bridge writes. */
  next(): Promise<any>;
  stderr(): string;
  close(): Promise<void>;
}

function rawBridge(url: string, key: string): RawBridge {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'mcp', '--url', url, '--key', key], {
    cwd: '/',
    env: { PATH: process.env.PATH ?? '' },
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const lines: string[] = [];
  const waiting: ((line: string) => void)[] = [];
  let err = '';
  void (async () => {
    let buffered = '';
    for await (const chunk of proc.stdout) {
      buffered += new TextDecoder().decode(chunk);
      for (let i = buffered.indexOf('\n'); i >= 0; i = buffered.indexOf('\n')) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        const waiter = waiting.shift();
        if (waiter) waiter(line);
        else lines.push(line);
      }
    }
  })();
  void (async () => {
    for await (const chunk of proc.stderr) err += new TextDecoder().decode(chunk);
  })();
  const write = async (line: string) => {
    proc.stdin.write(`${line}\n`);
    await proc.stdin.flush();
  };
  return {
    write,
    send: (message) => write(JSON.stringify({ jsonrpc: '2.0', ...message })),
    next: () => {
      const line = lines.shift();
      return Promise.resolve(line ?? new Promise<string>((resolve) => waiting.push(resolve))).then((l) =>
        JSON.parse(l),
      );
    },
    stderr: () => err,
    close: async () => {
      proc.stdin.end();
      await proc.exited;
    },
  };
}

const INITIALIZE = {
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

async function httpClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp-http`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  return client;
}

describe('engram mcp (stdio bridge)', () => {
  let server: TestServer;
  let owner: string;
  let container: string;
  beforeAll(async () => {
    server = await startTestServer();
    owner = (await makeOwner(server)).token;
    container = await makeContainer(server, owner, 'Journal');
  });
  afterAll(() => server.close());

  for (const level of ['read', 'suggest', 'manage'] as const) {
    it(`lists the same tools as /mcp-http for a ${level} key`, async () => {
      const { key } = await makeKey(server, owner, { level, containers: [container], profile: true });
      const [viaStdio, viaHttp] = await Promise.all([stdioClient(server.url, key), httpClient(server.url, key)]);
      const [a, b] = await Promise.all([viaStdio.listTools(), viaHttp.listTools()]);
      expect(a.tools.map((t) => t.name)).toEqual(b.tools.map((t) => t.name));
      expect(a.tools).toEqual(b.tools);
      await Promise.all([viaStdio.close(), viaHttp.close()]);
    });
  }

  it('carries an add and a search through to the server', async () => {
    const { key } = await makeKey(server, owner, { level: 'suggest', containers: [container] });
    const client = await stdioClient(server.url, key);
    const added = await client.callTool({
      name: 'add_document',
      arguments: { content: 'The cat is called Miso.', custom_id: 'cat' },
    });
    expect(added.isError).toBeFalsy();
    expect((added.structuredContent as { status: string }).status).toBe('queued');
    await server.learning.drain();
    const found = await client.callTool({ name: 'search_memories', arguments: { q: 'what is the cat called' } });
    expect((found.structuredContent as { results: { content: string }[] }).results[0]!.content).toContain('Miso');
    const refused = await client.callTool({ name: 'search_memories', arguments: { q: '' } });
    expect(refused.isError).toBe(true);
    await client.close();
  });

  it('gives a clear error, naming only the hint, when the key is revoked', async () => {
    const { id, key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const stderr: string[] = [];
    const client = await stdioClient(server.url, key, stderr);
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
    expect((await call(server, 'DELETE', `/v1/exposures/${id}`, owner)).status).toBe(200);
    const err = await client.listTools().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain('refused the key');
    expect(err?.message).not.toContain(key);
    expect(stderr.join('')).toContain('refused the key');
    expect(stderr.join('')).not.toContain(key);
    await client.close();
  });

  it('gives a clear error when the server is not running', async () => {
    const stderr: string[] = [];
    const client = await stdioClient('http://127.0.0.1:9', 'egm_nothing_here', stderr);
    const err = await client.listTools().then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain('Cannot reach the Engram server at http://127.0.0.1:9');
    expect(stderr.join('')).toContain('is it running?');
    await client.close();
  });

  it('refuses a tool outside the key with the server’s message', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const client = await stdioClient(server.url, key);
    const err = await client.callTool({ name: 'add_memory', arguments: { content: 'x' } }).then(
      () => null,
      (e: Error) => e,
    );
    expect(err?.message).toContain("not in this credential's capability profile");
    await client.close();
  });

  it('answers a line over the limit with an error naming the limit and its id, and goes on with the next line', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const bridge = rawBridge(server.url, key);
    try {
      await bridge.send(INITIALIZE);
      expect((await bridge.next()).result.protocolVersion).toBe('2025-11-25');
      await bridge.send({ method: 'notifications/initialized' });
      const huge = 'x'.repeat(MAX_BODY_BYTES + 4 * 1024 * 1024);
      // The SDKs put the id last (TypeScript) or first (Python): either way it is found.
      await bridge.write(
        JSON.stringify({
          method: 'tools/call',
          params: { name: 'search_memories', arguments: { q: huge } },
          jsonrpc: '2.0',
          id: 2,
        }),
      );
      await bridge.send({ id: 3, method: 'tools/list' });
      await bridge.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 'four',
          method: 'tools/call',
          params: { name: 'search_memories', arguments: { q: huge } },
        }),
      );
      await bridge.write(huge);
      await bridge.send({ id: 5, method: 'tools/call', params: { name: 'search_memories', arguments: { q: 'cat' } } });
      const refusal = {
        code: -32600,
        message: `The message is larger than ${MAX_BODY_BYTES} bytes, the most engram mcp reads on one line; it was not read.`,
        data: { limit_bytes: MAX_BODY_BYTES },
      };
      // Refusals are written when their line ends, relayed answers when the server answers: by id, not in order.
      const answers = new Map<unknown, any>();
      for (let i = 0; i < 5; i++) {
        const answer = await bridge.next();
        answers.set(answer.id, answer);
      }
      expect(answers.get(2)).toEqual({ jsonrpc: '2.0', id: 2, error: refusal });
      expect(answers.get(3).result.tools.length).toBeGreaterThan(0);
      expect(answers.get('four')).toEqual({ jsonrpc: '2.0', id: 'four', error: refusal });
      expect(answers.get(null)).toEqual({ jsonrpc: '2.0', id: null, error: refusal });
      expect(answers.get(5).result.isError).toBeUndefined();
      expect(bridge.stderr().split(refusal.message).length - 1).toBe(3);
    } finally {
      await bridge.close();
    }
  }, 30_000);

  it('answers a line that is not JSON, or not JSON-RPC, and goes on', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const bridge = rawBridge(server.url, key);
    try {
      await bridge.write('{"jsonrpc": "2.0", "id": 1, ');
      expect(await bridge.next()).toEqual({
        jsonrpc: '2.0',
        id: null,
        error: { code: -32700, message: 'Parse error: the line is not valid JSON.' },
      });
      await bridge.write('{"jsonrpc": "2.0", "id": 7, "method": 12}');
      expect(await bridge.next()).toMatchObject({ id: 7, error: { code: -32600 } });
      await bridge.send(INITIALIZE);
      expect((await bridge.next()).result.serverInfo.name).toBe('engram');
    } finally {
      await bridge.close();
    }
  });

  it('passes the server’s refusals on as the server wrote them, with one prefix at most: message, code and data with the trace id', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const bridge = rawBridge(server.url, key);
    try {
      await bridge.send(INITIALIZE);
      await bridge.next();
      await bridge.send({ id: 2, method: 'tools/call', params: { name: 'add_memory', arguments: { content: 'x' } } });
      expect(await bridge.next()).toEqual({
        jsonrpc: '2.0',
        id: 2,
        error: {
          code: -32000,
          message: "The tool add_memory is not in this credential's capability profile.",
          data: {
            code: 'unauthorized',
            details: { tool: 'add_memory' },
            retryable: false,
            trace_id: expect.stringMatching(/^tr_/),
          },
        },
      });
      await bridge.send({ id: 3, method: 'tools/call', params: { name: 7 } });
      expect(await bridge.next()).toEqual({
        jsonrpc: '2.0',
        id: 3,
        error: {
          code: -32602,
          message: "Invalid params: tools/call needs params.name, the tool's name, as a string; got a number.",
        },
      });
    } finally {
      await bridge.close();
    }
    // Through the SDK client, which adds its own prefix once.
    const client = await stdioClient(server.url, key);
    const err = await client.callTool({ name: 'add_memory', arguments: { content: 'x' } }).then(
      () => null,
      (e: Error & { data?: { trace_id?: string } }) => e,
    );
    expect(err?.message).toBe("MCP error -32000: The tool add_memory is not in this credential's capability profile.");
    expect(err?.data?.trace_id).toMatch(/^tr_/);
    await client.close();
  });

  it('answers the server/discover probe itself, and serves that era on stdio with no initialize', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const bridge = rawBridge(server.url, key);
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    try {
      await bridge.send({ id: 'probe', method: 'server/discover', params: { _meta: meta } });
      const discovered = await bridge.next();
      expect(discovered.result).toMatchObject({
        supportedVersions: ['2026-07-28'],
        capabilities: { tools: {}, resources: {}, prompts: {} },
        resultType: 'complete',
        cacheScope: 'private',
      });
      expect(discovered.result.instructions).toContain('memory_rules');
      await bridge.send({ id: 2, method: 'tools/list', params: { _meta: meta } });
      const listed = await bridge.next();
      expect(listed.result.resultType).toBe('complete');
      expect(listed.result.tools.map((t: { name: string }) => t.name)).toEqual([
        'list_containers',
        'search_memories',
        'list_documents',
        'memory_rules',
      ]);
      await bridge.send({
        id: 3,
        method: 'tools/call',
        params: { name: 'search_memories', arguments: { q: 'cat' }, _meta: meta },
      });
      expect((await bridge.next()).result).toMatchObject({
        resultType: 'complete',
        structuredContent: { results: expect.any(Array) },
      });
    } finally {
      await bridge.close();
    }
  });

  it('serves a 2026-07-28 desktop client from a server that speaks only the handshake era (an Engram before it)', async () => {
    // What the release before served at /mcp-http: a stateless SDK 1.32 server per request, no server/discover.
    const methods: string[] = [];
    const older = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      async fetch(req) {
        if (req.headers.get('authorization') !== 'Bearer egm_older_key') return new Response(null, { status: 401 });
        if (req.method !== 'POST') return new Response(null, { status: 405, headers: { Allow: 'POST' } });
        const body = await req.json();
        methods.push(body.method);
        const server = new ServerV1({ name: 'engram', version: '0.0.9' }, { capabilities: { tools: {} } });
        server.setRequestHandler(ListToolsRequestSchema, () => ({
          tools: [{ name: 'list_containers', inputSchema: { type: 'object' } }],
        }));
        server.setRequestHandler(CallToolRequestSchema, () => ({
          content: [{ type: 'text', text: '{"containers":[]}' }],
          structuredContent: { containers: [] },
        }));
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await server.connect(transport);
        return transport.handleRequest(req, { parsedBody: body });
      },
    });
    try {
      const client = new ClientV2(
        { name: 'pinned', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } } },
      );
      await client.connect(
        new StdioV2({
          command: process.execPath,
          args: [join(ROOT, 'src/main.ts'), 'mcp', '--url', `http://127.0.0.1:${older.port}`, '--key', 'egm_older_key'],
          cwd: '/',
          env: { PATH: process.env.PATH ?? '' },
          stderr: 'ignore',
        }),
      );
      expect(client.getProtocolEra()).toBe('modern');
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['list_containers']);
      expect((await client.callTool({ name: 'list_containers', arguments: {} })).structuredContent).toEqual({
        containers: [],
      });
      await client.close();
      // The bridge probed, was refused, and fell back to the handshake towards that server.
      expect(methods.slice(0, 3)).toEqual(['server/discover', 'initialize', 'notifications/initialized']);
      expect(methods).toContain('tools/call');
    } finally {
      older.stop(true);
    }
  });
});

/**
 * The MCP layer alone, per request, in process (no socket, no credential, no store; a tool that
 * echoes its arguments): what each way of serving /mcp-http costs on top of the operation. Run by
 * hand when choosing or upgrading the SDK (docs/decisions.md, "MCP on the SDK's v2").
 *
 *   bun bench/mcp-sdk-layer.ts [--requests 3000] [--runs 5]
 *
 * Ways, each answering one tools/call:
 *   sdk 1.32            a fresh Server and WebStandardStreamableHTTPServerTransport per request (the release before)
 *   server 2.4 legacy   the same with @modelcontextprotocol/server 2.4 (what the handshake era runs now)
 *   server 2.4 modern   createMcpHandler at 2026-07-28 (what the new era runs now)
 *   floor               the least a hand-written 2026-07-28 path must do: compare two headers with the
 *                       body, answer the JSON; no validation of `_meta`, no error cases, so a floor and
 *                       not an implementation
 * The ways take turns, a run of `requests` each, `runs` times; the median and the fastest run are
 * printed (on a shared host the fastest is the least disturbed).
 */
import { parseArgs } from 'node:util';
import { Server as ServerV1 } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport as TransportV1 } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { createMcpHandler, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';

const { values } = parseArgs({
  options: { requests: { type: 'string', default: '3000' }, runs: { type: 'string', default: '5' } },
});
const requests = Number(values.requests);
const runs = Number(values.runs);

const echo = (params: { arguments?: Record<string, unknown> }) => ({
  content: [{ type: 'text' as const, text: JSON.stringify(params.arguments) }],
  structuredContent: params.arguments ?? {},
});

const modern = createMcpHandler(
  () => {
    const server = new Server({ name: 'engram', version: '0' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/call', (request) => echo(request.params));
    return server;
  },
  { legacy: 'reject' },
);

/** A server and its transport, of either SDK, as the handshake era makes one per request. */
interface PerRequest {
  server: { connect(transport: never): Promise<void>; close(): Promise<void> };
  transport: { handleRequest(request: Request, options: { parsedBody: unknown }): Promise<Response> };
}

function v1(): PerRequest {
  const server = new ServerV1({ name: 'engram', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler(CallToolRequestSchema, (r) => echo(r.params));
  return { server, transport: new TransportV1({ sessionIdGenerator: undefined, enableJsonResponse: true }) };
}

function v2(): PerRequest {
  const server = new Server({ name: 'engram', version: '0' }, { capabilities: { tools: {} } });
  server.setRequestHandler('tools/call', (r) => echo(r.params));
  return {
    server,
    transport: new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    }),
  };
}

async function perRequest(make: () => PerRequest, request: Request, body: unknown): Promise<Response> {
  const { server, transport } = make();
  await server.connect(transport as never);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    void server.close();
  }
}

function floor(
  request: Request,
  body: { id: number; method: string; params: { _meta: Record<string, unknown>; arguments: Record<string, unknown> } },
): Response {
  const h = request.headers;
  if (
    h.get('mcp-protocol-version') !== body.params._meta['io.modelcontextprotocol/protocolVersion'] ||
    h.get('mcp-method') !== body.method
  ) {
    return Response.json(
      { jsonrpc: '2.0', id: body.id, error: { code: -32020, message: 'Header mismatch' } },
      { status: 400 },
    );
  }
  return Response.json({
    jsonrpc: '2.0',
    id: body.id,
    result: {
      ...echo(body.params),
      resultType: 'complete',
      _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'engram', version: '0' } },
    },
  });
}

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};
const args = { q: 'what does she eat for breakfast', container: '*' };
const legacyBody = {
  jsonrpc: '2.0',
  id: 3,
  method: 'tools/call',
  params: { name: 'search_memories', arguments: args },
};
const modernBody = { ...legacyBody, params: { ...legacyBody.params, _meta: META } };
const request = (body: unknown, modernEra: boolean) =>
  new Request('http://127.0.0.1/mcp-http', {
    method: 'POST',
    body: JSON.stringify(body),
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(modernEra
        ? { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/call', 'mcp-name': 'search_memories' }
        : { 'mcp-protocol-version': '2025-11-25' }),
    },
  });

const ways: Record<string, () => Promise<Response> | Response> = {
  'sdk 1.32': () => perRequest(v1, request(legacyBody, false), legacyBody),
  'server 2.4 legacy': () => perRequest(v2, request(legacyBody, false), legacyBody),
  'server 2.4 modern': () => modern.fetch(request(modernBody, true), { parsedBody: modernBody }),
  floor: () => floor(request(modernBody, true), modernBody),
};
for (const way of Object.values(ways)) {
  for (let i = 0; i < 300; i++) {
    const res = await way();
    if (res.status !== 200) throw new Error(`warm-up answered ${res.status}: ${await res.text()}`);
    await res.text();
  }
}
const micros = new Map<string, number[]>(Object.keys(ways).map((name) => [name, []]));
for (let run = 0; run < runs; run++) {
  for (const [name, way] of Object.entries(ways)) {
    const started = performance.now();
    for (let i = 0; i < requests; i++) await (await way()).text();
    micros.get(name)!.push(((performance.now() - started) / requests) * 1000);
  }
}
for (const [name, times] of micros) {
  times.sort((a, b) => a - b);
  console.log(
    `${name.padEnd(18)} median ${times[Math.floor(times.length / 2)]!.toFixed(1)} µs a request, fastest run ${times[0]!.toFixed(1)} µs (runs: ${times.map((t) => t.toFixed(0)).join(', ')})`,
  );
}

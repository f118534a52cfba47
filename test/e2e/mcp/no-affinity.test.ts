/**
 * The 2026-07-28 era keeps nothing between requests in a server process: a client connected
 * through a round-robin balancer, with no affinity, is answered by whichever of two server
 * processes each request reaches. The two serve copies of one store (SQLite allows one server per
 * store; the shared PostgreSQL store is for real replicas), which is all a read needs here.
 */
import { afterAll, beforeAll, expect, it } from 'bun:test';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { call, makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';

let first: TestServer;
let second: TestServer;
let balancer: ReturnType<typeof Bun.serve>;
let key: string;
let replicaHome: string;
/** Which process answered each request, by JSON-RPC method. */
const routed: { backend: number; method: string }[] = [];

beforeAll(async () => {
  const setup = await startTestServer();
  const owner = (await makeOwner(setup)).token;
  const notes = await makeContainer(setup, owner, 'Notes');
  expect(
    (
      await call(setup, 'POST', '/v1/documents', owner, {
        container: notes,
        content: 'The boiler was serviced in March.',
      })
    ).status,
  ).toBe(202);
  await setup.learning.drain();
  key = (await makeKey(setup, owner, { level: 'read', containers: [notes] })).key;
  await setup.stop();
  // The server's close removes its data directory, not this one it sits in.
  replicaHome = mkdtempSync(join(tmpdir(), 'engram-replica-'));
  const copy = join(replicaHome, 'data');
  cpSync(setup.dataDir, copy, { recursive: true });
  first = await setup.restart();
  second = await startTestServer({ dataDir: copy, database: first.database ?? undefined }); // the same database, where the suites run on PostgreSQL

  const backends = [first.url, second.url];
  let turn = 0;
  balancer = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
      // Two requests to each in turn, so that each method (they alternate) reaches both.
      const backend = Math.floor(turn++ / 2) % backends.length;
      const body = req.method === 'POST' ? await req.text() : undefined;
      if (body) routed.push({ backend, method: JSON.parse(body).method });
      const url = new URL(req.url);
      const headers = new Headers(req.headers);
      headers.delete('host');
      return fetch(`${backends[backend]}${url.pathname}`, { method: req.method, headers, body });
    },
  });
});
afterAll(async () => {
  balancer.stop(true);
  await Promise.all([first.close(), second.close()]);
  rmSync(replicaHome, { recursive: true, force: true });
});

it('answers a 2026-07-28 client whose requests alternate between two processes', async () => {
  const client = new Client(
    { name: 'no-affinity', version: '1' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${balancer.port}/mcp-http`), {
      requestInit: { headers: { Authorization: `Bearer ${key}` } },
    }),
  );
  expect(client.getProtocolEra()).toBe('modern');
  for (let i = 0; i < 3; i++) {
    expect((await client.listTools(undefined, { cacheMode: 'bypass' })).tools.map((t) => t.name)).toContain(
      'search_memories',
    );
    const found = await client.callTool({ name: 'search_memories', arguments: { q: 'when was the boiler serviced' } });
    expect((found.structuredContent as { results: { content: string }[] }).results[0]!.content).toContain('March');
  }
  await client.close();
  for (const method of ['tools/list', 'tools/call']) {
    expect(new Set(routed.filter((r) => r.method === method).map((r) => r.backend))).toEqual(new Set([0, 1]));
  }
});

/**
 * `engram mcp` driven by the SDK's stdio client, against a real server started by the test. The
 * bridge is started from `/`, as desktop clients start it: not from the checkout.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
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

async function httpClient(url: string, key: string): Promise<Client> {
  const client = new Client({ name: 'http-test', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp-http`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }));
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
    const added = await client.callTool({ name: 'add_document', arguments: { content: 'The cat is called Miso.', custom_id: 'cat' } });
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
    const err = await client.listTools().then(() => null, (e: Error) => e);
    expect(err?.message).toContain('refused the key');
    expect(err?.message).not.toContain(key);
    expect(stderr.join('')).toContain('refused the key');
    expect(stderr.join('')).not.toContain(key);
    await client.close();
  });

  it('gives a clear error when the server is not running', async () => {
    const stderr: string[] = [];
    const client = await stdioClient('http://127.0.0.1:9', 'egm_nothing_here', stderr);
    const err = await client.listTools().then(() => null, (e: Error) => e);
    expect(err?.message).toContain('Cannot reach the Engram server at http://127.0.0.1:9');
    expect(stderr.join('')).toContain('is it running?');
    await client.close();
  });

  it('refuses a tool outside the key with the server’s message', async () => {
    const { key } = await makeKey(server, owner, { level: 'read', containers: [container] });
    const client = await stdioClient(server.url, key);
    const err = await client.callTool({ name: 'add_memory', arguments: { content: 'x' } }).then(() => null, (e: Error) => e);
    expect(err?.message).toContain("not in this credential's capability profile");
    await client.close();
  });
});

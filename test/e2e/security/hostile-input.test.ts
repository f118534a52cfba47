/**
 * Hostile input: oversized bodies, invalid UTF-8, invalid JSON, deep nesting, SQL and FTS5 syntax
 * in every string field, path traversal in ids, and SSRF through URL documents. Whatever comes in:
 * no 5xx, every 4xx carries the envelope with a trace_id, and a refused request stores nothing
 * (the tables are counted before and after, against the writes that were answered as done).
 */
import { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { connect as netConnect, createServer, type Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { DB_FILE } from '../../../src/storage/sqlite/open';
import { addDocument, addMemory, makeAccount, type TestAccount } from '../../helpers/rest';
import { type Answer, makeKey, startTestServer, type TestServer } from '../../helpers/server';

let server: TestServer;
let A: TestAccount;
let key: string;
let keyId: string;
let a1: string;
let a2: string;
let docA1: string;
let docA2: string;
let factA1: string;
let db: Database;

/** The canary: a TCP listener on 127.0.0.1 that counts every connection it is ever offered. */
let canary: NetServer;
let canaryPort = 0;
let canaryConnections = 0;
/** A loopback redirector that sends every request on to the canary. */
let redirector: ReturnType<typeof Bun.serve>;
let redirectorHits = 0;

const TABLES = ['documents', 'memories', 'containers', 'credentials', 'rules', 'accounts'] as const;
type Counts = Record<(typeof TABLES)[number], number>;

function counts(): Counts {
  return Object.fromEntries(
    TABLES.map((t) => [t, (db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n]),
  ) as Counts;
}

/** What the answers said was written: the tables must have moved by exactly this much. */
const written: Counts = { documents: 0, memories: 0, containers: 0, credentials: 0, rules: 0, accounts: 0 };
const problems: string[] = [];
let requests = 0;

/** Accounts for a write the server said it made, from the route and the answer. */
function account(method: string, path: string, answer: Answer): void {
  const p = path.split('?')[0]!;
  if (method === 'POST' && p === '/v1/documents' && answer.status === 202) written.documents++;
  if (method === 'POST' && p === '/v1/memories' && answer.status === 201) written.memories++;
  if (method === 'POST' && p === '/v1/containers' && answer.status === 201) written.containers++;
  if (method === 'POST' && p === '/v1/api-keys' && answer.status === 201) written.credentials++;
  if (method === 'POST' && p === '/v1/rules' && answer.status === 201) written.rules++;
  if (
    method === 'DELETE' &&
    answer.status === 200 &&
    answer.body?.status === 'deleted' &&
    p.startsWith('/v1/documents/')
  )
    written.documents--;
  if (method === 'DELETE' && answer.status === 200 && answer.body?.status === 'forgotten') written.memories--;
}

/** MCP transport errors answered in JSON-RPC's own shape (no envelope): an observation, reported. */
const rpcErrors = new Set<string>();

/** No 5xx; a 4xx carries the envelope with a trace_id equal to X-Trace-Id. */
function judge(label: string, answer: Answer): void {
  requests++;
  if (answer.status >= 500) problems.push(`${label}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 200)}`);
  if (answer.status === 400 && answer.body?.jsonrpc === '2.0' && answer.body?.error?.code === -32700) {
    rpcErrors.add(`${answer.status} ${JSON.stringify(answer.body)} X-Trace-Id: ${answer.headers.get('X-Trace-Id')}`);
  } else if (answer.status >= 400) {
    const b = answer.body;
    const keys = b && typeof b === 'object' ? Object.keys(b).sort().join(',') : typeof b;
    if (keys !== 'code,details,message,retryable,trace_id')
      problems.push(`${label}: ${answer.status} without the envelope: ${JSON.stringify(b).slice(0, 200)}`);
    else if (!/^tr_\w+$/.test(b.trace_id) || answer.headers.get('X-Trace-Id') !== b.trace_id)
      problems.push(`${label}: trace_id ${b.trace_id} / header ${answer.headers.get('X-Trace-Id')}`);
  }
}

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
};

/** One request with a body sent exactly as given (text or bytes); judged and accounted. */
async function send(
  method: string,
  path: string,
  token: string | null,
  body?: string | Uint8Array,
  label = `${method} ${path}`,
): Promise<Answer> {
  const headers: Record<string, string> = { Accept: 'application/json, text/event-stream' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, body: body as BodyInit | undefined });
  const answer = { status: res.status, body: parse(await res.text()) as any, headers: res.headers };
  judge(label.slice(0, 300), answer);
  account(method, path, answer);
  return answer;
}

const json = (method: string, path: string, token: string | null, body: unknown) =>
  send(method, path, token, JSON.stringify(body));

/** An MCP tools/call of `name` with `args`, sent as JSON. */
const toolCall = (token: string, name: string, args: Record<string, unknown>, label: string) =>
  send(
    'POST',
    '/mcp-http',
    token,
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    label,
  );

/**
 * A request written byte for byte on a socket, so the path reaches the server as written: fetch
 * and URL would resolve `..` and `%2e%2e` segments before sending.
 */
async function rawRequest(method: string, path: string, token: string): Promise<Answer> {
  const { port } = new URL(server.url);
  const text = await new Promise<string>((resolve, reject) => {
    const socket = netConnect(Number(port), '127.0.0.1');
    let data = '';
    socket.on('connect', () =>
      socket.write(
        `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nConnection: close\r\n\r\n`,
      ),
    );
    socket.on('data', (d) => (data += d.toString('latin1')));
    socket.on('end', () => resolve(data));
    socket.on('error', reject);
  });
  const [head, ...rest] = text.split('\r\n\r\n');
  const lines = head!.split('\r\n');
  const status = Number(lines[0]!.split(' ')[1]);
  const headers = new Headers();
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    headers.append(line.slice(0, i).trim(), line.slice(i + 1).trim());
  }
  let body = rest.join('\r\n\r\n');
  if (/chunked/i.test(headers.get('Transfer-Encoding') ?? '')) {
    let out = '';
    let s = body;
    for (;;) {
      const nl = s.indexOf('\r\n');
      const size = parseInt(s.slice(0, nl), 16);
      if (!size) break;
      out += s.slice(nl + 2, nl + 2 + size);
      s = s.slice(nl + 2 + size + 2);
    }
    body = out;
  }
  const answer = { status, body: parse(Buffer.from(body, 'latin1').toString('utf8')) as any, headers };
  judge(`raw ${method} ${path}`, answer);
  account(method, path, answer);
  return answer;
}

let before: Counts;

beforeAll(async () => {
  canary = createServer((socket) => {
    canaryConnections++;
    socket.end('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\nConnection: close\r\n\r\nCANARY');
  });
  await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
  canaryPort = (canary.address() as { port: number }).port;
  redirector = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    fetch(req) {
      redirectorHits++;
      const path = new URL(req.url).pathname;
      const to: Record<string, string> = {
        '/to-canary': `http://127.0.0.1:${canaryPort}/`,
        '/to-canary-v6': `http://[::ffff:127.0.0.1]:${canaryPort}/`,
        '/to-canary-decimal': `http://2130706433:${canaryPort}/`,
        '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
        '/chain': '/to-canary',
      };
      return new Response(null, {
        status: path === '/to-canary-v6' ? 307 : 302,
        headers: { Location: to[path] ?? to['/to-canary']! },
      });
    },
  });

  // Started without ENGRAM_FETCH_ALLOW_PRIVATE: the URL reader keeps to public addresses.
  server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '1000000', ENGRAM_EMBEDDER: 'none' } });
  A = await makeAccount(server, ['one', 'two']);
  a1 = A.containers.one!;
  a2 = A.containers.two!;
  ({ key, id: keyId } = await makeKey(server, A.owner, { level: 'manage', containers: [a1], profile: true }));
  docA1 = await addDocument(server, A.owner, {
    container: a1,
    content: 'Gardening notes: tomatoes need sun.',
    title: 'Garden',
  });
  docA2 = await addDocument(server, A.owner, {
    container: a2,
    content: 'Secret two: the vault code is 4242.',
    title: 'Vault',
  });
  factA1 = await addMemory(server, A.owner, { content: 'Waters the garden at dawn.', container: a1 });
  await server.learning.drain();
  db = new Database(join(server.dataDir, DB_FILE), { readonly: true });
  before = counts();
}, 60_000);

afterAll(async () => {
  db?.close();
  await server?.close();
  await redirector?.stop(true);
  canary?.close();
});

/** Nothing outside the key's reach in an answer to the key, beyond what the request itself named (`echo`). */
function noLeak(label: string, answer: Answer, echo = ''): void {
  const text = JSON.stringify(answer.body);
  for (const s of [a2, docA2, 'vault code', 'Secret two'])
    if (text.includes(s) && !echo.includes(s)) problems.push(`${label}: leaks ${s}`);
}

describe('hostile input', () => {
  it('refuses oversized bodies without storing anything', async () => {
    const start = counts();
    const big = (mib: number) => JSON.stringify({ container: a1, content: 'x'.repeat(mib * 1024 * 1024) });
    // Over 8 MiB: our limit, answered with the envelope.
    const over8 = await send('POST', '/v1/documents', key, big(9), 'POST /v1/documents 9 MiB');
    expect(over8.status).toBe(422);
    expect(over8.body.code).toBe('validation');
    expect(over8.body.details.limit_bytes).toBe(8 * 1024 * 1024);
    const over8mcp = await send('POST', '/mcp-http', key, big(9), 'POST /mcp-http 9 MiB');
    expect(over8mcp.status).toBe(422);

    // Far over the limit, declared or streamed: refused the same way, before the body is read.
    const over64 = await send('POST', '/v1/documents', key, big(64), 'POST /v1/documents 64 MiB');
    expect([over64.status, over64.body.code]).toEqual([422, 'validation']);
    let streamed = 0;
    const chunks = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (streamed >= 32 * 1024 * 1024) return controller.close();
        streamed += 1024 * 1024;
        controller.enqueue(new Uint8Array(1024 * 1024).fill(0x78));
      },
    });
    const chunked = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      body: chunks,
      duplex: 'half',
    } as RequestInit);
    const chunkedAnswer = {
      status: chunked.status,
      body: parse(await chunked.text()) as any,
      headers: chunked.headers,
    };
    judge('POST /v1/documents 32 MiB, chunked', chunkedAnswer);
    expect([chunkedAnswer.status, chunkedAnswer.body.code]).toEqual([422, 'validation']);
    expect(streamed).toBeLessThan(32 * 1024 * 1024); // cut off, not read to the end
    expect(counts()).toEqual(start);
    // The server still answers afterwards.
    expect((await send('GET', '/v1/containers', key)).status).toBe(200);
  }, 60_000);

  it('survives invalid UTF-8, invalid JSON and deep nesting', async () => {
    const enc = new TextEncoder();
    const withBytes = (prefix: string, bytes: number[], suffix: string) =>
      new Uint8Array([...enc.encode(prefix), ...bytes, ...enc.encode(suffix)]);
    const badSequences = [
      [0xff],
      [0xfe, 0xff],
      [0xc0, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf8, 0x88, 0x80, 0x80, 0x80],
      [0x80],
      [0xe2, 0x82],
      [0x00],
    ];
    for (const bad of badSequences) {
      const label = `bytes ${bad.map((b) => b.toString(16)).join(' ')}`;
      await send(
        'POST',
        '/v1/documents',
        key,
        withBytes(`{"container":"${a1}","content":"a`, bad, '","title":"t"}'),
        `add_document ${label}`,
      );
      await send(
        'POST',
        '/v1/memories',
        key,
        withBytes(`{"container":"${a1}","content":"b`, bad, '"}'),
        `add_memory ${label}`,
      );
      await send(
        'POST',
        '/v1/search',
        key,
        withBytes('{"q":"garden', bad, `","container":"${a1}"}`),
        `search ${label}`,
      );
      await send('POST', '/v1/containers', A.owner, withBytes('{"name":"n', bad, '"}'), `create_container ${label}`);
      await send(
        'POST',
        '/v1/documents',
        key,
        withBytes(`{"container":"${a1}","content":"c"`, bad, '}'),
        `add_document ${label} outside a string`,
      );
      await send(
        'POST',
        '/mcp-http',
        key,
        withBytes(
          '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search_memories","arguments":{"q":"g',
          bad,
          `","container":"${a1}"}}}`,
        ),
        `mcp ${label}`,
      );
    }

    const invalid = [
      '{',
      '{"q":',
      '{"q":"x"}garbage',
      "{'q':'x'}",
      '{q:"x"}',
      '{"q":"x",}',
      '[1,]',
      'NaN',
      'undefined',
      '\u0000',
      '{"q":"\\x41"}',
      '{"q":"\\ud800"',
      '{"a":' + '['.repeat(50),
    ];
    const nonObjects = ['[]', 'null', '"string"', '1', 'true', '[{"q":"x"}]'];
    const bodyRoutes: [string, string, string | null][] = [
      ['POST', '/v1/search', key],
      ['POST', '/v1/memories', key],
      ['POST', '/v1/documents', key],
      ['POST', '/v1/containers', A.owner],
      ['PATCH', `/v1/containers/${a1}`, A.owner],
      ['POST', '/v1/api-keys', A.owner],
      ['PATCH', `/v1/api-keys/${keyId}`, A.owner],
      ['PATCH', `/v1/exposures/${keyId}/views`, A.owner],
      ['POST', '/v1/rules', A.owner],
      ['POST', '/v1/session', null],
    ];
    for (const [method, path, token] of bodyRoutes) {
      for (const body of [...invalid, ...nonObjects]) {
        const res = await send(
          method,
          path,
          token,
          body,
          `${method} ${path} body ${JSON.stringify(body).slice(0, 40)}`,
        );
        if (res.status !== 422 || res.body?.code !== 'validation')
          problems.push(
            `${method} ${path} ${JSON.stringify(body).slice(0, 40)}: expected 422 validation, got ${res.status} ${res.body?.code}`,
          );
      }
    }
    // MCP answers unparsable JSON with a JSON-RPC error, the transport's own format: never a 5xx.
    for (const body of invalid) {
      const res = await fetch(`${server.url}/mcp-http`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${key}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
        },
        body,
      });
      const parsed = parse(await res.text()) as any;
      requests++;
      if (res.status !== 400 || parsed?.error?.code !== -32700)
        problems.push(
          `mcp body ${JSON.stringify(body).slice(0, 40)}: ${res.status} ${JSON.stringify(parsed).slice(0, 120)}`,
        );
    }

    // Depth 10,000 in metadata, in content, and as an MCP argument. 100,000 deep is a 500: see the failing test below.
    for (const depth of [10_000]) {
      const deepObj = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
      const deepArr = '['.repeat(depth) + ']'.repeat(depth);
      for (const deep of [deepObj, deepArr]) {
        const label = `depth ${depth} ${deep[0]}`;
        const r1 = await send(
          'POST',
          '/v1/documents',
          key,
          `{"container":"${a1}","content":"deep","metadata":{"m":${deep}}}`,
          `add_document metadata ${label}`,
        );
        expect(r1.status).toBe(422);
        await send(
          'POST',
          '/v1/documents',
          key,
          `{"container":"${a1}","content":${deep}}`,
          `add_document content ${label}`,
        );
        await send('POST', '/v1/search', key, `{"q":${deep}}`, `search q ${label}`);
        await send(
          'POST',
          '/v1/memories',
          key,
          `{"content":"x","container":"${a1}","title":${deep}}`,
          `add_memory title ${label}`,
        );
        const mcp = await send(
          'POST',
          '/mcp-http',
          key,
          `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_document","arguments":{"container":"${a1}","content":"deep","metadata":{"m":${deep}}}}}`,
          `mcp metadata ${label}`,
        );
        if (mcp.status === 200 && !mcp.body?.result?.isError && !mcp.body?.error)
          problems.push(`mcp metadata ${label}: accepted ${JSON.stringify(mcp.body).slice(0, 200)}`);
      }
    }
    // Nesting that fits in 16 KiB of metadata is stored, and reads back without harm.
    const shallow = '['.repeat(3000) + ']'.repeat(3000);
    const stored = await send(
      'POST',
      '/v1/documents',
      key,
      `{"container":"${a1}","content":"nested ok","metadata":{"m":${shallow}}}`,
    );
    expect(stored.status).toBe(202);
    const read = await send('GET', `/v1/documents/${stored.body.id}`, key);
    expect(read.status).toBe(200);
    expect(JSON.stringify(read.body.metadata)).toBe(`{"m":${shallow}}`);
    expect((await send('GET', '/v1/documents?limit=200', key)).status).toBe(200);

    expect(problems).toEqual([]);
  }, 120_000);

  // Metadata nested 50,000+ objects deep (a 600 KB body, under the 8 MiB limit) once overflowed the
  // stack in the metadata size check and answered 500.
  it('refuses metadata nested 100,000 objects deep with a 4xx, not a 500 (finding)', async () => {
    const start = counts();
    const depth = 100_000;
    const deep = '{"a":'.repeat(depth) + '1' + '}'.repeat(depth); // arrays this deep fail the same way, less reliably
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const res = await fetch(`${server.url}/v1/documents`, {
      method: 'POST',
      headers,
      body: `{"container":"${a1}","content":"deep","metadata":{"m":${deep}}}`,
    });
    const body = (await res.json()) as any;
    expect(counts()).toEqual(start);
    expect(body.trace_id).toMatch(/^tr_/);
    expect(res.status).toBe(422);
  });

  it('treats SQL and FTS5 syntax as plain text in every string field', async () => {
    const payloads = [
      "' OR '1'='1",
      "'; DROP TABLE documents; --",
      '" OR ""="',
      '1; SELECT * FROM credentials',
      "') UNION SELECT secret_hash, 1 FROM credentials --",
      'NEAR(garden vault, 1)',
      'garden OR vault AND NOT x',
      '"unterminated',
      'title:vault',
      'content:*',
      '*',
      '^garden',
      'vau*',
      '{content title}: vault',
      '(((',
      ')',
      '-vault',
      '+',
      '\\',
      '%',
      '_',
      '%_%',
      '\u0000',
      "\u0000' OR 1=1 --",
      "x'||(SELECT hex(randomblob(8)))||'",
      'AND',
      'OR NOT',
      '"garden" NEAR/2 "vault"',
      'vault\u202e',
      '💥',
      'garden; PRAGMA writable_schema=1',
      "'; ATTACH DATABASE '/tmp/x.db' AS x; --",
      'a'.repeat(5000),
      '',
      ' ',
    ];
    const ids = payloads.filter((p) => p.trim() !== '' && p !== '*'); // "*" is search's every-container-in-reach
    for (const p of payloads) {
      const l = JSON.stringify(p).slice(0, 50);
      // q
      noLeak(`search ${l}`, await json('POST', '/v1/search', key, { q: p, container: a1 }));
      noLeak(`search * ${l}`, await json('POST', '/v1/search', key, { q: p, container: '*' }));
      noLeak(`profile ${l}`, await send('GET', `/v1/profile?q=${encodeURIComponent(p)}`, key));
      await json('POST', '/v1/search', A.owner, { q: p, container: '*' });
      // content, title, custom_id
      await json('POST', '/v1/documents', key, { container: a1, content: p || 'empty', title: p, custom_id: p });
      await json('POST', '/v1/memories', key, { container: a1, content: p || 'empty', title: p });
      // names and texts of the owner's routes
      await json('POST', '/v1/containers', A.owner, { name: p, description: p });
      await json('PATCH', `/v1/containers/${a1}`, A.owner, { description: p });
      await json('POST', '/v1/api-keys', A.owner, { name: p, level: 'read', containers: [a1] });
      await json('POST', '/v1/rules', A.owner, { text: p });
      await json('POST', '/v1/rules', A.owner, { text: 'rule', credential_id: p || 'x' });
      await json('PATCH', `/v1/exposures/${keyId}/views`, A.owner, { containers: [p] });
    }
    for (const p of ids) {
      const l = JSON.stringify(p).slice(0, 50);
      const e = encodeURIComponent(p);
      // container ids: refused like a container outside reach (or malformed when too long)
      for (const res of [
        await json('POST', '/v1/search', key, { q: 'garden', container: p }),
        await send('GET', `/v1/documents?container=${e}`, key),
        await json('POST', '/v1/memories', key, { content: 'x', container: p }),
        await json('POST', '/v1/documents', key, { content: 'x', container: p }),
      ]) {
        if (!(res.status === 403 && res.body.code === 'unauthorized') && res.status !== 422)
          problems.push(`container ${l}: ${res.status} ${res.body?.code}`);
      }
      // document and memory ids: not found (or malformed when too long)
      for (const res of [
        await send('GET', `/v1/documents/${e}`, key),
        await send('DELETE', `/v1/documents/${e}?confirm=true`, key),
        await send('DELETE', `/v1/memories/${e}?confirm=true`, key),
        await send('DELETE', `/v1/memories/${e}?confirm=true&container=${e}`, key),
        await send('DELETE', `/v1/documents/${e}?confirm=true`, A.owner),
      ]) {
        if (!(res.status === 404 && res.body.code === 'not_found') && res.status !== 422)
          problems.push(`id ${l}: ${res.status} ${res.body?.code}`);
      }
      // the owner's ids
      for (const res of [
        await json('PATCH', `/v1/containers/${e}`, A.owner, { name: 'x' }),
        await send('DELETE', `/v1/containers/${e}?confirm=true`, A.owner),
        await json('PATCH', `/v1/api-keys/${e}`, A.owner, { name: 'x' }),
        await send('GET', `/v1/api-keys/${e}/usage`, A.owner),
        await send('DELETE', `/v1/exposures/${e}`, A.owner),
        await send('DELETE', `/v1/rules/${e}`, A.owner),
        await send('DELETE', `/v1/connected-apps/${e}`, A.owner),
      ]) {
        if (res.status < 400) problems.push(`owner id ${l}: ${res.status} ${JSON.stringify(res.body).slice(0, 100)}`);
      }
      // MCP tools take the same strings
      const mcp = await toolCall(key, 'search_memories', { q: p, container: '*' }, `mcp search ${l}`);
      noLeak(`mcp search ${l}`, mcp);
      await toolCall(key, 'forget_memory', { memory_id: p, confirm: true }, `mcp forget ${l}`);
      await toolCall(key, 'delete_document', { document_id: p, confirm: true }, `mcp delete ${l}`);
    }
    await server.learning.drain();
    // The injected text is stored as text and found as text.
    const found = await json('POST', '/v1/search', key, { q: 'DROP TABLE documents', container: a1 });
    expect(found.status).toBe(200);
    expect(found.body.containers.every((c: any) => !c.error)).toBe(true);
    // The account's own data is intact.
    expect((await send('GET', `/v1/documents/${docA1}`, key)).status).toBe(200);
    expect((await send('GET', `/v1/documents/${docA2}`, A.owner)).status).toBe(200);
    expect(problems).toEqual([]);
  }, 180_000);

  it('does not walk out of an id with path traversal', async () => {
    const paths = [
      '/v1/documents/..%2f..%2fapi-keys',
      '/v1/documents/%2e%2e%2f%2e%2e%2fapi-keys',
      '/v1/documents/..%2F',
      '/v1/documents/%2e%2e',
      '/v1/documents/..',
      '/v1/documents/../api-keys',
      '/v1/documents/../../v1/api-keys',
      '/v1/documents/..%5c..%5capi-keys',
      '/v1/documents/%252e%252e%252fapi-keys',
      '/v1/documents/doc%00',
      '/v1/documents/%00',
      `/v1/documents/${docA1}%00`,
      `/v1/documents/${docA1}%00${docA2}`,
      `/v1/documents/${docA1}%2f..%2f${docA2}`,
      `/v1/documents/${docA1}/../${docA2}`,
      `/v1/documents/%2e%2e/${docA2}`,
      '/v1/documents/%2F%2Fetc%2Fpasswd',
      '/v1/documents/....//....//etc/passwd',
      '/v1/documents/%c0%ae%c0%ae%c0%af',
      '/v1/documents/%ff',
      `/v1/documents/${encodeURIComponent(`../${docA2}`)}`,
      `/v1/containers/..%2f${a2}`,
      '/v1/api-keys/..%2f..%2fapi-keys/usage',
      `/v1/exposures/..%2f${keyId}`,
      '/v1/memories/..%2f..%2fapi-keys',
      `/v1/memories/${factA1}%00`,
      `/v1/documents?container=..%2f${a2}`,
      `/v1/documents?container=${a1}%00${a2}`,
      `/v1/documents?container=${a1}&container=${a2}`,
      '/v1//documents',
      '/v1/./api-keys',
      '/%2e%2e/v1/api-keys',
      '/v1/%2e%2e/v1/api-keys',
    ];
    for (const path of paths) {
      for (const method of ['GET', 'DELETE']) {
        const p = method === 'DELETE' ? `${path}${path.includes('?') ? '&' : '?'}confirm=true` : path;
        const res = await rawRequest(method, p, key);
        noLeak(`raw ${method} ${p}`, res, p);
        if (
          res.status === 200 &&
          method === 'DELETE' &&
          (res.body?.status === 'deleted' || res.body?.status === 'forgotten')
        )
          problems.push(`raw DELETE ${p} deleted ${JSON.stringify(res.body)}`);
      }
    }
    // The document and the fact the ids started from are still there.
    expect((await send('GET', `/v1/documents/${docA1}`, key)).status).toBe(200);
    expect((await send('DELETE', `/v1/memories/${factA1}`, key)).body.status).toBe('confirmation_required');
    expect(problems).toEqual([]);
  }, 60_000);

  it('never lets a URL document reach a private address (SSRF), and fails each with a reason', async () => {
    const P = canaryPort;
    const R = redirector.port as number;
    const urls = [
      `http://127.0.0.1:${P}/`,
      `http://127.1:${P}/`,
      `http://127.0.1:${P}/`,
      `http://2130706433:${P}/`,
      `http://0x7f000001:${P}/`,
      `http://0x7f.0x0.0x0.0x1:${P}/`,
      `http://0177.0.0.1:${P}/`,
      `http://017700000001:${P}/`,
      `http://0177.0000.0000.0001:${P}/`,
      `http://127.000.000.001:${P}/`,
      `http://[::1]:${P}/`,
      `http://[0:0:0:0:0:0:0:1]:${P}/`,
      `http://[::ffff:127.0.0.1]:${P}/`,
      `http://[::ffff:7f00:1]:${P}/`,
      `http://[0:0:0:0:0:ffff:127.0.0.1]:${P}/`,
      `http://[::127.0.0.1]:${P}/`,
      `http://[::]:${P}/`,
      `http://0.0.0.0:${P}/`,
      `http://0:${P}/`,
      `http://localhost:${P}/`,
      `http://LOCALHOST:${P}/`,
      `http://localhost.:${P}/`,
      `http://foo.localhost:${P}/`,
      `http://127.0.0.1.:${P}/`,
      `https://127.0.0.1:${P}/`,
      `http://user:pass@127.0.0.1:${P}/`,
      `http://example.com@127.0.0.1:${P}/`,
      `http://127.0.0.1:${P}#@example.com/`,
      `http://[::ffff:0:127.0.0.1]:${P}/`,
      `http://[64:ff9b::127.0.0.1]:${P}/`,
      `http://[2002:7f00:1::]:${P}/`,
      `http://%31%32%37.0.0.1:${P}/`,
      `http://①②⑦.0.0.1:${P}/`,
      `HTTP://127.0.0.1:${P}/`,
      `http://127.0.0.1:${P}/%2e%2e/`,
      `http://127.127.127.127:${P}/`,
      `http://[::ffff:7f00:0001]:${P}/`,
      `http://0x7f.1:${P}/`,
      'http://10.0.0.1/',
      'http://172.16.0.1/',
      'http://192.168.1.1/',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.64.0.1/',
      'http://[fe80::1]/',
      'http://[fc00::1]/',
      'http://198.18.0.1/',
      'http://224.0.0.1/',
      'http://255.255.255.255/',
      'http://0xa9fea9fe/',
      'http://2852039166/',
      'http://[::ffff:169.254.169.254]/',
      'http://[::ffff:a9fe:a9fe]/',
      'http://0251.0376.0251.0376/',
      `http://127.0.0.1:${R}/to-canary`,
      `http://localhost:${R}/to-canary`,
      `http://[::ffff:127.0.0.1]:${R}/to-canary-v6`,
      `http://127.0.0.1:${R}/chain`,
      `http://2130706433:${R}/to-canary-decimal`,
      `http://127.0.0.1:${R}/to-metadata`,
      'file:///etc/passwd',
      `gopher://127.0.0.1:${P}/_GET`,
      `ftp://127.0.0.1:${P}/`,
      `dict://127.0.0.1:${P}/`,
      'data:text/plain,hello',
      'javascript:alert(1)',
      `ws://127.0.0.1:${P}/`,
    ];
    expect(urls.length).toBeGreaterThanOrEqual(50);
    const queued: { url: string; id: string }[] = [];
    const refused: string[] = [];
    for (const url of urls) {
      const res = await json('POST', '/v1/documents', key, { container: a1, url });
      if (res.status === 202) queued.push({ url, id: res.body.id });
      else if (res.status >= 400 && res.status < 500) refused.push(`${url} → ${res.status} ${res.body?.code}`);
      else problems.push(`${url}: ${res.status} ${JSON.stringify(res.body).slice(0, 200)}`);
    }
    await server.learning.drain();
    const reasons: string[] = [];
    for (const { url, id } of queued) {
      const doc = await send('GET', `/v1/documents/${id}`, key);
      if (
        doc.body.status !== 'failed' ||
        typeof doc.body.error !== 'string' ||
        !doc.body.error.trim() ||
        doc.body.learned
      ) {
        problems.push(
          `${url}: ${JSON.stringify({ status: doc.body.status, learned: doc.body.learned, error: doc.body.error })}`,
        );
      }
      if (String(doc.body.content ?? '').includes('CANARY')) problems.push(`${url}: read the canary`);
      reasons.push(`${url} → ${doc.body.error}`);
    }
    console.log(
      `hostile input: ${urls.length} SSRF URLs, ${queued.length} queued and failed, ${refused.length} refused at add\n  ${[...reasons, ...refused].join('\n  ')}`,
    );
    expect(problems).toEqual([]);
    expect({ canaryConnections, redirectorHits }).toEqual({ canaryConnections: 0, redirectorHits: 0 });
    // The canary does see a connection when one is made: the zero above means something.
    await fetch(`http://127.0.0.1:${P}/`).then((r) => r.text());
    expect(canaryConnections).toBe(1);
  }, 180_000);

  it("answers an oversized header with 431 in the envelope, not Bun's bare answer", async () => {
    const big = async (bytes: number): Promise<Answer> => {
      const res = await fetch(`${server.url}/v1/containers`, {
        headers: { Authorization: `Bearer ${key}`, 'X-Padding': 'a'.repeat(bytes) },
      });
      return { status: res.status, body: parse(await res.text()) as any, headers: res.headers };
    };
    const over = await big(20 * 1024);
    judge('GET /v1/containers with a 20 KiB header', over);
    expect(over.status).toBe(431);
    expect(over.body.code).toBe('validation');
    expect(over.body.details.limit_bytes).toBe(16 * 1024);
    expect((await big(15 * 1024)).status).toBe(200);
    // Past Bun's parser limit (64 KiB here) Bun still answers alone, before the app: see docs/reliability.md.
    const huge = await big(80 * 1024);
    expect(huge.status).toBe(431);
    console.log(
      `hostile input: 20 KiB header → ${over.status} ${over.body.code}; 80 KiB header → ${huge.status} ${JSON.stringify(huge.body)}`,
    );
  });

  it('refuses names with bidi overrides or invisible formatting: 422 validation naming the field, nothing stored', async () => {
    const patchedKey = (
      await json('POST', '/v1/api-keys', A.owner, { name: 'Plain name', level: 'read', containers: [a1] })
    ).body.id;
    const names = [
      'Invo\u202Eseciov',
      '\u2066Work\u2069',
      'Pay\u200Bpal',
      'Left\u200Emark',
      'Bell\u0007',
      'Line\u2028break',
      'Tag\u{E0041}',
    ];
    for (const name of names) {
      const answers = [
        await json('POST', '/v1/containers', A.owner, { name }),
        await json('PATCH', `/v1/containers/${a1}`, A.owner, { name }),
        await json('POST', '/v1/api-keys', A.owner, { name, level: 'read', containers: [a1] }),
        await json('PATCH', `/v1/api-keys/${patchedKey}`, A.owner, { name }),
      ];
      for (const answer of answers) {
        expect({ name, status: answer.status, code: answer.body.code, fields: answer.body.details?.fields }).toEqual({
          name,
          status: 422,
          code: 'validation',
          fields: ['name'],
        });
        expect(answer.body.message).toContain('invisible formatting');
      }
    }
    // Joiners stay allowed: scripts and emoji need them.
    expect((await json('POST', '/v1/containers', A.owner, { name: 'می\u200Cخواهم 👩\u200D💻' })).status).toBe(201);
    const listed = await json('GET', '/v1/containers', A.owner, undefined);
    expect(listed.body.containers.map((c: { name: string }) => c.name)).not.toContain('Invo\u202Eseciov');
  });

  it('stored exactly what it said it stored, and never answered 5xx', () => {
    const after = counts();
    const want = Object.fromEntries(TABLES.map((t) => [t, before[t] + written[t]]));
    expect(after).toEqual(want as Counts);
    expect(problems).toEqual([]);
    console.log(`hostile input: ${requests} requests judged; writes answered as done: ${JSON.stringify(written)}`);
    console.log(
      `hostile input: MCP parse errors answered as JSON-RPC, without the envelope: ${[...rpcErrors].join(' | ')}`,
    );
  });
});

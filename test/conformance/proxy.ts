/**
 * A test-only loopback proxy for the MCP conformance suite, which cannot send a bearer itself:
 * it adds `Authorization: Bearer <key>` to every request and forwards it to the server unchanged
 * otherwise. Origin, Host and the MCP headers pass through as sent (Bun's fetch keeps a given Host),
 * so the server's own checks are what the suite tests. Test-only: it listens on 127.0.0.1 only.
 *
 * Usage: bun test/conformance/proxy.ts --target http://127.0.0.1:PORT --port PORT
 *        (the key comes from ENGRAM_API_KEY, so it never appears in a process listing)
 */
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  args: Bun.argv.slice(2),
  options: { target: { type: 'string' }, port: { type: 'string' } },
});
const key = process.env.ENGRAM_API_KEY;
if (!values.target || !key) {
  process.stderr.write('proxy: needs --target URL and ENGRAM_API_KEY\n');
  process.exit(2);
}
const target = new URL(values.target);

/** Headers that belong to one hop and are not forwarded (RFC 9110 §7.6.1), plus the length, which fetch sets. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
]);

const server = Bun.serve({
  hostname: '127.0.0.1',
  port: Number(values.port ?? 0),
  idleTimeout: 120,
  async fetch(req) {
    const url = new URL(req.url);
    const headers = new Headers();
    for (const [name, value] of req.headers) if (!HOP_BY_HOP.has(name)) headers.set(name, value);
    headers.set('Authorization', `Bearer ${key}`);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.arrayBuffer();
    const upstream = await fetch(new URL(url.pathname + url.search, target), {
      method: req.method,
      headers,
      body,
      redirect: 'manual',
    });
    const out = new Headers();
    for (const [name, value] of upstream.headers)
      if (!HOP_BY_HOP.has(name) && name !== 'content-encoding') out.set(name, value);
    return new Response(upstream.body, { status: upstream.status, headers: out });
  },
});

process.stdout.write(`proxy listening on http://127.0.0.1:${server.port} -> ${target.origin}\n`);

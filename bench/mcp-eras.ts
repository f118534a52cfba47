/**
 * What a search costs over MCP in each protocol era, against the same search over REST, on one
 * spawned `engram serve` over a store of generated passages.
 *
 *   bun bench/mcp-eras.ts [--passages 10000] [--rounds 20] [--per-round 25] [--embedder fast] [--paths a,b,...] [--keep DIR]
 *
 * Paths (all by default):
 *   rest         POST /v1/search, raw fetch
 *   modern       POST /mcp-http tools/call at 2026-07-28: `_meta` and the Mcp-* headers, no handshake
 *   legacy       POST /mcp-http tools/call at 2025-11-25 (one initialize first; stateless, so each call stands alone)
 *   client-modern  the same through @modelcontextprotocol/client 2.4 pinned to 2026-07-28
 *   client-legacy  through @modelcontextprotocol/client 2.4 in legacy mode
 *   sdk1         through @modelcontextprotocol/sdk 1.32 (the handshake era only)
 * The raw paths show what the server pays; the client paths what an agent using that SDK waits.
 *
 * The paths take turns, `per-round` searches each, for `rounds` rounds, one search at a time, so a
 * busy moment of a shared host falls on all of them alike. Printed per path: the latency p50 and
 * p95, and the server's CPU time per search (from /proc, utime + stime, over that path's searches).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile, query, seeded } from './lib/corpus';
import { serve } from './lib/engram-process';
import { seedStore } from './lib/seed';

const ALL = ['rest', 'modern', 'legacy', 'client-modern', 'client-legacy', 'sdk1'] as const;
type Path = (typeof ALL)[number];

const { values } = parseArgs({
  options: {
    passages: { type: 'string', default: '10000' },
    rounds: { type: 'string', default: '20' },
    'per-round': { type: 'string', default: '25' },
    embedder: { type: 'string', default: 'fast' },
    paths: { type: 'string', default: ALL.join(',') },
    keep: { type: 'string' },
  },
});
const paths = values.paths!.split(',') as Path[];
for (const p of paths) if (!ALL.includes(p)) throw new Error(`unknown path ${p}; one of ${ALL.join(', ')}`);
const rounds = Number(values.rounds);
const perRound = Number(values['per-round']);

const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-bench-'));
const seed = await seedStore(dir, Number(values.passages), values.embedder!, values.keep !== undefined);
const server = await serve(dir, { ENGRAM_EMBEDDER: values.embedder! });
const endpoint = `${server.url}/mcp-http`;
const auth = { Authorization: `Bearer ${seed.key}` };

/** One search by a path: resolves once the answer is read whole; throws when it is not a search result. */
type Search = (q: string) => Promise<void>;

const expectResults = (body: unknown) => {
  if (!Array.isArray((body as { results?: unknown })?.results))
    throw new Error(`not a search answer: ${JSON.stringify(body).slice(0, 300)}`);
};

async function rawMcp(version: string, modern: boolean): Promise<Search> {
  let id = 0;
  const meta = {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const post = async (method: string, params: Record<string, unknown>, extra: Record<string, string> = {}) => {
    const res = await fetch(endpoint, {
      method: 'POST',
      headers: {
        ...auth,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': version,
        ...extra,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params: modern ? { ...params, _meta: meta } : params }),
    });
    return res.json() as Promise<{ result?: { structuredContent?: unknown } }>;
  };
  if (!modern)
    await post('initialize', {
      protocolVersion: version,
      capabilities: {},
      clientInfo: { name: 'bench', version: '1' },
    });
  return async (q) => {
    const answer = await post(
      'tools/call',
      { name: 'search_memories', arguments: { q, limit: 10 } },
      modern ? { 'Mcp-Method': 'tools/call', 'Mcp-Name': 'search_memories' } : {},
    );
    expectResults(answer.result?.structuredContent);
  };
}

async function sdkClient(path: 'client-modern' | 'client-legacy' | 'sdk1'): Promise<Search> {
  if (path === 'sdk1') {
    const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
    const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: auth } }));
    return async (q) =>
      expectResults(
        (await client.callTool({ name: 'search_memories', arguments: { q, limit: 10 } })).structuredContent,
      );
  }
  const { Client, StreamableHTTPClientTransport } = await import('@modelcontextprotocol/client');
  const mode = path === 'client-modern' ? { pin: '2026-07-28' as const } : ('legacy' as const);
  const client = new Client({ name: 'bench', version: '1' }, { versionNegotiation: { mode } });
  await client.connect(new StreamableHTTPClientTransport(new URL(endpoint), { requestInit: { headers: auth } }));
  return async (q) =>
    expectResults((await client.callTool({ name: 'search_memories', arguments: { q, limit: 10 } })).structuredContent);
}

async function searchBy(path: Path): Promise<Search> {
  switch (path) {
    case 'rest':
      return async (q) => {
        const res = await fetch(`${server.url}/v1/search`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json' },
          body: JSON.stringify({ q, limit: 10 }),
        });
        expectResults(await res.json());
      };
    case 'modern':
      return rawMcp('2026-07-28', true);
    case 'legacy':
      return rawMcp('2025-11-25', false);
    default:
      return sdkClient(path);
  }
}

const searches = new Map<Path, Search>();
for (const path of paths) searches.set(path, await searchBy(path));
const random = seeded(11);
for (const search of searches.values()) for (let i = 0; i < 20; i++) await search(query(random)); // warm-up

const times = new Map<Path, number[]>(paths.map((p) => [p, []]));
const cpu = new Map<Path, number>(paths.map((p) => [p, 0]));
const load = [loadavg()[0]!];
for (let round = 0; round < rounds; round++) {
  for (const [path, search] of searches) {
    const cpuBefore = server.cpuSeconds();
    for (let i = 0; i < perRound; i++) {
      const q = query(random);
      const started = performance.now();
      await search(q);
      times.get(path)!.push(performance.now() - started);
    }
    cpu.set(path, cpu.get(path)! + server.cpuSeconds() - cpuBefore);
  }
  load.push(loadavg()[0]!);
}
await server.stop();
if (!values.keep) rmSync(dir, { recursive: true, force: true });

const n = rounds * perRound;
const restP50 = times.has('rest')
  ? percentile(
      [...times.get('rest')!].sort((a, b) => a - b),
      50,
    )
  : null;
console.log(
  `passages: ${seed.passages} (${seed.reused ? 'store reused' : `seeded in ${seed.seconds.toFixed(1)} s`}), embedder: ${values.embedder}, ${n} searches a path in ${rounds} alternating rounds`,
);
console.log(`load average (1 min) during the run: ${Math.min(...load).toFixed(2)}-${Math.max(...load).toFixed(2)}`);
for (const path of paths) {
  const sorted = [...times.get(path)!].sort((a, b) => a - b);
  const p50 = percentile(sorted, 50);
  const vsRest =
    restP50 !== null && path !== 'rest'
      ? ` (${p50 - restP50 >= 0 ? '+' : ''}${(p50 - restP50).toFixed(2)} ms against REST)`
      : '';
  console.log(
    `${path.padEnd(14)} p50 ${p50.toFixed(2)} ms${vsRest}, p95 ${percentile(sorted, 95).toFixed(2)} ms, server CPU ${((cpu.get(path)! / n) * 1000).toFixed(2)} ms a search`,
  );
}

/**
 * The client side of the soak (bench/soak.ts starts it as its own process): 16 clients for a
 * fixed time against one server, 8 through the TypeScript client library (its source, as Bun runs it) and 8
 * over MCP with the official SDK client. Each runs a closed loop, 70 % reads and 30 % writes, and
 * records every answer; the record is written as JSON to --out for bench/soak.ts to check.
 *
 *   bun bench/soak-clients.ts --url URL --key KEY --container ID --minutes 5 --run RUNID --out FILE
 *
 * A tenth of document adds reuse a custom_id: half re-add one already acknowledged (must answer
 * `exists` with the same id), half are concurrent duplicate pairs: TS client i and MCP client i+8
 * add the same new custom_id at the same moment (exactly one must answer `queued`).
 */
import { Client as McpClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { parseArgs } from 'node:util';
import { APIError, Client } from '../clients/typescript/src/index';
import { documentText, query, seeded, sentence } from './lib/corpus';

const { values } = parseArgs({
  options: {
    url: { type: 'string' },
    key: { type: 'string' },
    container: { type: 'string' },
    minutes: { type: 'string', default: '5' },
    run: { type: 'string', default: 'run' },
    out: { type: 'string' },
    'think-ms': { type: 'string', default: '0' },
  },
});
const url = values.url!;
const key = values.key!;
const container = values.container!;
const runId = values.run!;
const thinkMs = Number(values['think-ms']);
const durationMs = Number(values.minutes) * 60_000;

export type Op = 'search' | 'profile' | 'list_documents' | 'get_document' | 'add_document' | 'add_memory';
export type Via = 'ts' | 'mcp';

/** One acknowledged document add. */
export interface DocAck {
  id: string;
  customId: string | null;
  status: 'queued' | 'exists';
  via: Via;
  pair?: number;
}
export interface Failure {
  op: Op;
  via: Via;
  status: number | null;
  code: string | null;
  message: string;
}
export interface SoakRecord {
  startedAt: number;
  endedAt: number;
  /** Latencies in ms of successful calls, per op and transport (`op/via`). */
  latencies: Record<string, number[]>;
  /** Every HTTP status seen by the clients' fetch, counted (MCP initialize included). */
  httpStatuses: Record<string, number>;
  failures: Failure[];
  failureCount: number;
  docs: DocAck[];
  facts: { id: string; via: Via }[];
  /** Sequential re-adds of an acknowledged custom_id: the id first acknowledged, and the answer. */
  reuses: { customId: string; expectedId: string; got: DocAck }[];
  pairs: { customId: string; answers: (DocAck | null)[] }[];
}

const record: SoakRecord = {
  startedAt: Date.now(),
  endedAt: 0,
  latencies: {},
  httpStatuses: {},
  failures: [],
  failureCount: 0,
  docs: [],
  facts: [],
  reuses: [],
  pairs: [],
};

/** A fetch that counts every HTTP status, so a 5xx the library or SDK would hide or retry is still seen. */
const countingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
  const res = await fetch(input, init);
  record.httpStatuses[res.status] = (record.httpStatuses[res.status] ?? 0) + 1;
  return res;
};

function fail(op: Op, via: Via, status: number | null, code: string | null, message: string): void {
  record.failureCount++;
  if (record.failures.length < 200) record.failures.push({ op, via, status, code, message: message.slice(0, 300) });
}

/** One transport's calls, the same five verbs for both. get_document has no MCP tool: MCP lists instead. */
interface Caller {
  via: Via;
  search(q: string): Promise<unknown>;
  profile(q?: string): Promise<unknown>;
  listDocuments(limit: number): Promise<{ documents: { id: string }[] }>;
  getDocument(id: string): Promise<unknown>;
  addDocument(body: {
    content: string;
    custom_id?: string;
    title?: string;
  }): Promise<{ id: string; status: 'queued' | 'exists'; custom_id: string | null }>;
  addMemory(body: { content: string; static?: boolean }): Promise<{ id: string }>;
}

class CallError extends Error {
  constructor(
    readonly status: number | null,
    readonly code: string | null,
    message: string,
  ) {
    super(message);
  }
}

function tsCaller(): Caller {
  // No retries: every attempt is one timed request, and a write acknowledged is one request answered 2xx.
  const client = new Client({
    apiKey: key,
    baseURL: url,
    maxRetries: 0,
    timeout: 60_000,
    fetch: (u, i) => countingFetch(u, i),
  });
  const wrap = async <T>(p: () => Promise<T>): Promise<T> => {
    try {
      return await p();
    } catch (err) {
      if (err instanceof APIError) throw new CallError(err.status, err.code, err.message);
      throw new CallError(null, null, String(err));
    }
  };
  return {
    via: 'ts',
    search: (q) => wrap(() => client.search({ q, limit: 10 })),
    profile: (q) => wrap(() => client.profile(q ? { q } : {})),
    listDocuments: (limit) => wrap(() => client.documents.list({ container, limit })),
    getDocument: (id) => wrap(() => client.documents.get(id)),
    addDocument: (body) => wrap(() => client.add({ container, ...body })),
    addMemory: (body) =>
      wrap(() =>
        client.memories.add(
          body.static ? { content: body.content, static: true } : { content: body.content, container },
        ),
      ),
  };
}

async function mcpCaller(n: number): Promise<Caller> {
  const transport = new StreamableHTTPClientTransport(new URL(`${url}/mcp-http`), {
    fetch: countingFetch,
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
  });
  const client = new McpClient({ name: `engram-soak-${n}`, version: '1.0.0' });
  await client.connect(transport);
  const tool = async (name: string, args: Record<string, unknown>): Promise<any> => {
    let result: CallToolResult;
    try {
      result = (await client.callTool({ name, arguments: args }, undefined, { timeout: 60_000 })) as CallToolResult;
    } catch (err) {
      const status = /HTTP (\d{3})/.exec(String(err))?.[1];
      throw new CallError(status ? Number(status) : null, null, String(err));
    }
    const body = result.structuredContent as any;
    // A tool error rides a 200; `internal` is the server failing (a 5xx over REST).
    if (result.isError)
      throw new CallError(body?.code === 'internal' ? 500 : 400, body?.code ?? null, JSON.stringify(body));
    return body;
  };
  return {
    via: 'mcp',
    search: (q) => tool('search_memories', { q, limit: 10 }),
    profile: (q) => tool('get_profile', q ? { q } : {}),
    listDocuments: (limit) => tool('list_documents', { container, limit }),
    getDocument: () => tool('list_documents', { container, limit: 1 }),
    addDocument: (body) => tool('add_document', { container, ...body }),
    addMemory: (body) =>
      tool('add_memory', body.static ? { content: body.content, static: true } : { content: body.content, container }),
  };
}

/** Times one call; a 2xx answer is recorded under `op/via`, anything else as a failure. Null on failure. */
async function timed<T>(op: Op, via: Via, call: () => Promise<T>): Promise<T | null> {
  const started = performance.now();
  try {
    const out = await call();
    const key = `${op}/${via}`;
    record.latencies[key] ??= [];
    record.latencies[key]!.push(performance.now() - started);
    return out;
  } catch (err) {
    const e = err instanceof CallError ? err : new CallError(null, null, String(err));
    fail(op, via, e.status, e.code, e.message);
    return null;
  }
}

// Concurrent duplicate pairs: TS client i leaves a request in MCP client i+8's mailbox and waits
// for it to be picked up; then both send the add in the same tick.
interface PairRequest {
  customId: string;
  content: string;
  index: number;
  go: () => void;
}
const mailbox = new Map<number, PairRequest>();
let pairCount = 0;
let uniq = 0;
const deadline = Date.now() + durationMs;
/** Custom ids acknowledged so far, for sequential re-adds. */
const known: { customId: string; id: string }[] = [];

function ack(
  res: { id: string; status: 'queued' | 'exists'; custom_id: string | null },
  via: Via,
  pair?: number,
): DocAck {
  const a: DocAck = {
    id: res.id,
    customId: res.custom_id,
    status: res.status,
    via,
    ...(pair === undefined ? {} : { pair }),
  };
  record.docs.push(a);
  return a;
}

async function answerPair(caller: Caller, req: PairRequest): Promise<void> {
  req.go();
  const res = await timed('add_document', caller.via, () =>
    caller.addDocument({ content: req.content, custom_id: req.customId }),
  );
  record.pairs[req.index]!.answers[1] = res ? ack(res, caller.via, req.index) : null;
}

async function runClient(n: number, caller: Caller): Promise<void> {
  const random = seeded(1000 + n);
  let lastDocs: string[] = [];
  const freshId = () => `soak-${runId}-${n}-${uniq++}`;
  while (Date.now() < deadline) {
    const pending = mailbox.get(n);
    if (pending) {
      mailbox.delete(n);
      await answerPair(caller, pending);
      continue;
    }
    const r = random();
    if (r < 0.35) {
      await timed('search', caller.via, () => caller.search(query(random)));
    } else if (r < 0.5) {
      await timed('profile', caller.via, () => caller.profile(random() < 0.5 ? query(random) : undefined));
    } else if (r < 0.6) {
      const page = await timed('list_documents', caller.via, () => caller.listDocuments(20));
      if (page) lastDocs = page.documents.map((d) => d.id);
    } else if (r < 0.7) {
      const id = lastDocs[Math.floor(random() * lastDocs.length)];
      if (caller.via === 'ts' && id) await timed('get_document', caller.via, () => caller.getDocument(id));
      else {
        const page = await timed('list_documents', caller.via, () => caller.listDocuments(5));
        if (page) lastDocs = page.documents.map((d) => d.id);
      }
    } else if (r < 0.9) {
      const content = documentText(random, 200 + Math.floor(random() * 600));
      const kind = random();
      if (kind < 0.05 && known.length > 0) {
        // Re-add an acknowledged custom_id: must answer `exists` with the id first given.
        const prior = known[Math.floor(random() * known.length)]!;
        const res = await timed('add_document', caller.via, () =>
          caller.addDocument({ content, custom_id: prior.customId }),
        );
        if (res) record.reuses.push({ customId: prior.customId, expectedId: prior.id, got: ack(res, caller.via) });
      } else if (kind < 0.1 && caller.via === 'ts' && n < 8 && Date.now() < deadline - 5_000) {
        const partner = n + 8;
        if (mailbox.has(partner)) continue;
        const index = pairCount++;
        const customId = `soak-${runId}-pair-${index}`;
        record.pairs[index] = { customId, answers: [null, null] };
        let go!: () => void;
        const picked = new Promise<void>((resolve) => (go = resolve));
        mailbox.set(partner, { customId, content, index, go });
        await picked;
        const res = await timed('add_document', caller.via, () => caller.addDocument({ content, custom_id: customId }));
        record.pairs[index]!.answers[0] = res ? ack(res, caller.via, index) : null;
        if (res?.custom_id) known.push({ customId: res.custom_id, id: res.id });
      } else {
        const customId = random() < 0.5 ? freshId() : undefined;
        const res = await timed('add_document', caller.via, () =>
          caller.addDocument({ content, ...(customId ? { custom_id: customId } : {}) }),
        );
        if (res) {
          ack(res, caller.via);
          if (customId) known.push({ customId, id: res.id });
        }
      }
    } else {
      const content = `${sentence(random, 10)} (soak ${runId} ${n}-${uniq++})`;
      const res = await timed('add_memory', caller.via, () => caller.addMemory({ content, static: random() < 0.2 }));
      if (res) record.facts.push({ id: res.id, via: caller.via });
    }
    if (thinkMs > 0) await Bun.sleep(thinkMs);
  }
  // A partner whose time ran out still answers a pair it was asked for, so no initiator waits forever.
  for (let i = 0; i < 100 && mailbox.size > 0; i++) {
    const pending = mailbox.get(n);
    if (pending) {
      mailbox.delete(n);
      await answerPair(caller, pending);
    }
    await Bun.sleep(50);
  }
}

const callers: Caller[] = [];
for (let i = 0; i < 8; i++) callers.push(tsCaller());
for (let i = 0; i < 8; i++) callers.push(await mcpCaller(i));
await Promise.all(callers.map((c, n) => runClient(n, c)));
record.endedAt = Date.now();
await Bun.write(values.out!, JSON.stringify(record));
process.exit(0);

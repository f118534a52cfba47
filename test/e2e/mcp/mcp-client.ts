/**
 * Drives /mcp-http the way users do: the official SDK `Client` over `StreamableHTTPClientTransport`,
 * with a fetch that records every HTTP exchange, so tests can read statuses and headers the SDK
 * hides (WWW-Authenticate, a 403's JSON-RPC error, the absence of Mcp-Session-Id). Also seeds an account.
 */
import { expect } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { call, makeContainer, makeKey, makeOwner, type TestServer } from '../../helpers/server';

const MCP_PATH = '/mcp-http';

/** One HTTP request the SDK made, with the answer it got. */
export interface Exchange {
  method: string;
  rpcMethod: string | null;
  /** The JSON-RPC id of the request sent, when it had one. */
  rpcId: string | number | null;
  status: number;
  headers: Headers;
  body: any;
}

export interface McpSession {
  client: Client;
  transport: StreamableHTTPClientTransport;
  /** Every exchange of this session, oldest first. */
  exchanges: Exchange[];
  /** Connects (initialize + initialized); rejects when the server refuses. */
  connect(): Promise<void>;
  close(): Promise<void>;
}

/** Every exchange made by any session; the suites check none carried an Mcp-Session-Id. */
export const allExchanges: Exchange[] = [];

/** An SDK client for the server with `token` as its bearer (none when null), not yet connected. */
export function mcpSession(server: { url: string }, token: string | null): McpSession {
  const exchanges: Exchange[] = [];
  const recordingFetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    let rpcMethod: string | null = null;
    let rpcId: string | number | null = null;
    try {
      const sent = typeof init?.body === 'string' ? JSON.parse(init.body) : null;
      rpcMethod = sent?.method ?? null;
      rpcId = sent?.id ?? null;
    } catch {}
    // Our server answers JSON (never an open SSE stream), so reading a clone to the end is safe.
    const text = await res.clone().text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {}
    const exchange = {
      method: init?.method ?? 'GET',
      rpcMethod,
      rpcId,
      status: res.status,
      headers: res.headers,
      body,
    };
    exchanges.push(exchange);
    allExchanges.push(exchange);
    return res;
  };
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}${MCP_PATH}`), {
    fetch: recordingFetch,
    requestInit: token ? { headers: { Authorization: `Bearer ${token}` } } : undefined,
  });
  const client = new Client({ name: 'engram-e2e', version: '1.0.0' });
  return {
    client,
    transport,
    exchanges,
    connect: () => client.connect(transport),
    close: () => client.close(),
  };
}

/** A connected session. */
export async function connectMcp(server: { url: string }, token: string): Promise<McpSession> {
  const session = mcpSession(server, token);
  await session.connect();
  return session;
}

/** The tool names of tools/list, in order. */
export async function toolNames(session: McpSession): Promise<string[]> {
  return (await session.client.listTools()).tools.map((t) => t.name);
}

/** Calls a tool; returns the whole result after checking that its text parses to its structuredContent. */
export async function callTool(
  session: McpSession,
  name: string,
  args: Record<string, unknown> = {},
): Promise<CallToolResult & { structuredContent: any }> {
  const result = (await session.client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.content).toHaveLength(1);
  const [item] = result.content;
  expect(item!.type).toBe('text');
  expect(JSON.parse((item as { text: string }).text)).toEqual(result.structuredContent);
  return result as CallToolResult & { structuredContent: any };
}

/** A tool call that must succeed; returns its structuredContent. */
export async function ok(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await callTool(session, name, args);
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.structuredContent)}`);
  return result.structuredContent;
}

/** A tool call that must answer a tool error (isError with the envelope); returns the envelope. */
export async function toolError(session: McpSession, name: string, args: Record<string, unknown> = {}): Promise<any> {
  const result = await callTool(session, name, args);
  expect(result.isError).toBe(true);
  expect(Object.keys(result.structuredContent).sort()).toEqual(['code', 'details', 'message', 'retryable', 'trace_id']);
  expect(result.structuredContent.trace_id).toMatch(/^tr_/);
  return result.structuredContent;
}

/** The envelope without its trace id, which differs per request by design. */
export const withoutTrace = ({ trace_id: _, ...rest }: Record<string, unknown>) => rest;

/**
 * A refusal answered at the HTTP level (403, 429) as the envelope it carries: the JSON-RPC error's
 * message with its data (code, details, retryable, trace_id). Checks the body is a JSON-RPC error
 * for the request sent, with the server's refusal code.
 */
export function refusalIn(exchange: Exchange): Record<string, any> {
  expect(exchange.body).toMatchObject({ jsonrpc: '2.0', id: exchange.rpcId, error: { code: -32000 } });
  expect(Object.keys(exchange.body.error.data).sort()).toEqual(['code', 'details', 'retryable', 'trace_id']);
  expect(exchange.headers.get('x-trace-id')).toBe(exchange.body.error.data.trace_id);
  return { message: exchange.body.error.message, ...exchange.body.error.data };
}

/** The last exchange of a session. */
export const lastExchange = (session: McpSession): Exchange => session.exchanges.at(-1)!;

/** The tools/list each grant must see, in the order of the contract's tool table. */
export function expectedTools(level: 'read' | 'suggest' | 'manage', profile: boolean): string[] {
  const read = [
    'list_containers',
    'search_memories',
    ...(profile ? ['get_profile'] : []),
    'list_documents',
    'memory_rules',
  ];
  const suggest = [...read, 'add_memory', 'add_document'];
  return level === 'read' ? read : level === 'suggest' ? suggest : [...suggest, 'delete_document', 'forget_memory'];
}

export interface Seeded {
  owner: string;
  food: string;
  work: string;
  /** A container no test key reaches. */
  secret: string;
  /** Mints a key reaching food and work. */
  key(
    level: 'read' | 'suggest' | 'manage',
    profile: boolean,
    extra?: Record<string, unknown>,
  ): Promise<{ id: string; key: string }>;
  /** Adds a learned document to a container as the owner; returns its id. */
  addDocument(container: string, content: string, title?: string): Promise<string>;
  /** Saves a fact as the owner; returns its id. */
  addFact(content: string, container: string | null): Promise<string>;
}

/** An account with three containers, learned documents, a profile fact, a container fact and a rule. */
export async function seed(server: TestServer): Promise<Seeded> {
  const owner = (await makeOwner(server)).token;
  // The clock stands still in tests; a millisecond between containers makes "oldest first" one order.
  const food = await makeContainer(server, owner, 'Food');
  server.clock.advance(1);
  const work = await makeContainer(server, owner, 'Work');
  server.clock.advance(1);
  const secret = await makeContainer(server, owner, 'Secret');
  const addDocument = async (container: string, content: string, title?: string) => {
    const res = await call(server, 'POST', '/v1/documents', owner, { container, content, ...(title ? { title } : {}) });
    if (res.status !== 202) throw new Error(`document: ${res.status} ${JSON.stringify(res.body)}`);
    await server.learning.drain();
    return res.body.id as string;
  };
  const addFact = async (content: string, container: string | null) => {
    const res = await call(
      server,
      'POST',
      '/v1/memories',
      owner,
      container ? { content, container } : { content, static: true },
    );
    if (res.status !== 201) throw new Error(`memory: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body.id as string;
  };
  await addDocument(food, 'She eats oatmeal with blueberries for breakfast every morning.', 'Breakfast');
  await addDocument(work, 'The quarterly report for the board is due on Friday.', 'Report');
  await addDocument(secret, 'The oatmeal recipe in the secret container must never be seen by a key.', 'Hidden');
  await addFact('Prefers tea over coffee.', null);
  await addFact('Allergic to peanuts.', food);
  const rule = await call(server, 'POST', '/v1/rules', owner, { text: 'Never share health facts with third parties.' });
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${JSON.stringify(rule.body)}`);
  return {
    owner,
    food,
    work,
    secret,
    addDocument,
    addFact,
    key: (level, profile, extra = {}) => makeKey(server, owner, { level, profile, containers: [food, work], ...extra }),
  };
}

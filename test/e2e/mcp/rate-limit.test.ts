/**
 * The per-credential limiter on /mcp-http, through the official SDK client: every request on a
 * credential counts (initialize, its notification, tools/list, tool calls), search and add are never
 * answered 429, and an over-limit request that is not a tool call is HTTP 429 with the refusal in
 * JSON-RPC (the envelope's fields as its data).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeContainer, makeKey, makeOwner, startTestServer, type TestServer } from '../../helpers/server';
import { lastExchange, type McpSession, mcpSession, ok, refusalIn, toolError, toolNames } from './mcp-client';

const LIMIT = 5;
let server: TestServer;
let owner: string;

beforeAll(async () => {
  server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: String(LIMIT) } });
  owner = (await makeOwner(server)).token;
  await makeContainer(server, owner, 'Tea');
});
afterAll(async () => {
  await server.close();
});

const newKey = async () => (await makeKey(server, owner, { level: 'suggest', all_views: true })).key;

/** The answer of the last exchange: HTTP 429 with the per-credential limiter's refusal in JSON-RPC. */
function expectLimited(session: McpSession): void {
  const answer = lastExchange(session);
  expect(answer.status).toBe(429);
  const refusal = refusalIn(answer);
  expect(refusal).toMatchObject({ code: 'rate_limited', retryable: true, details: { limit_per_min: LIMIT } });
  expect(refusal.trace_id).toMatch(/^tr_/);
  expect(answer.headers.get('retry-after')).toBeNull();
}

async function rejects429(promise: Promise<unknown>): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StreamableHTTPError);
  expect((err as StreamableHTTPError).code).toBe(429);
}

describe('every MCP request on a credential counts', () => {
  it('answers tools/list over the limit with 429 and the refusal: initialize, its notification and tools/list all counted', async () => {
    const session = mcpSession(server, await newKey());
    await session.connect(); // initialize + notifications/initialized: 2
    for (let i = 0; i < LIMIT - 2; i++) expect((await toolNames(session)).length).toBeGreaterThan(0); // 3..5
    await rejects429(session.client.listTools());
    expect(lastExchange(session).rpcMethod).toBe('tools/list');
    expectLimited(session);
    await session.close();
  });

  it('answers initialize over the limit with 429, so a client cannot even connect', async () => {
    const key = await newKey();
    await mcpSession(server, key).connect(); // 2
    const second = mcpSession(server, key);
    await second.connect(); // 4
    await toolNames(second); // 5
    const late = mcpSession(server, key);
    await rejects429(late.connect());
    expect(lastExchange(late).rpcMethod).toBe('initialize');
    expectLimited(late);
  });

  it('counts initialize and tools/list in the same minute as tool calls, answered as a tool error; search and add_document still answer', async () => {
    const session = mcpSession(server, await newKey());
    await session.connect(); // 2
    await toolNames(session); // 3
    await toolNames(session); // 4
    expect(await ok(session, 'list_containers')).toBeDefined(); // 5
    expect(await toolError(session, 'list_documents', {})).toMatchObject({
      code: 'rate_limited',
      details: { limit_per_min: LIMIT },
    });
    // The contract: search and add are never answered 429.
    expect(await ok(session, 'search_memories', { q: 'anything' })).toHaveProperty('results');
    expect(await ok(session, 'add_document', { content: 'Likes green tea.' })).toHaveProperty('id');
    await session.close();
  });

  it('counts resources and prompts once each, the operations they call included; over the limit, 429', async () => {
    const session = mcpSession(server, await newKey());
    await session.connect(); // 2
    const { resources } = await session.client.listResources(); // 3
    await session.client.readResource({ uri: resources[0]!.uri }); // 4: get_container, counted once
    await session.client.getPrompt({ name: 'save_decisions' }); // 5: list_containers inside, counted once
    await rejects429(session.client.readResource({ uri: resources[0]!.uri }));
    expect(lastExchange(session).rpcMethod).toBe('resources/read');
    expectLimited(session);
    await session.close();
  });

  it('holds each credential to its own minute, and lets it in again once the minute has passed', async () => {
    const session = mcpSession(server, await newKey());
    await session.connect();
    for (let i = 0; i < LIMIT - 2; i++) await toolNames(session);
    await rejects429(session.client.listTools());
    const other = mcpSession(server, await newKey());
    await other.connect();
    expect((await toolNames(other)).length).toBeGreaterThan(0);
    server.clock.advance(60_001);
    expect((await toolNames(session)).length).toBeGreaterThan(0);
    await session.close();
    await other.close();
  });
});

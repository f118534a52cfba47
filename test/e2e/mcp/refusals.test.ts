/**
 * Every way /mcp-http says no, seen through the official SDK client: 401 with the RFC 6750 body
 * for missing, unknown, expired and revoked credentials; 403 with a JSON-RPC error carrying the
 * envelope for a tool outside the grant (counted in the key's usage), whose message and trace id
 * reach the SDK's caller; tool errors (isError + envelope) for reach, validation and
 * not-found; retired names answered only when the credential holds the current tool.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { DAY_MS } from '../../../src/clock';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import {
  allExchanges,
  callTool,
  connectMcp,
  lastExchange,
  type McpSession,
  mcpSession,
  ok,
  refusalIn,
  seed,
  type Seeded,
  toolError,
  withoutTrace,
} from './mcp-client';

let server: TestServer;
let world: Seeded;

beforeAll(async () => {
  server = await startTestServer();
  world = await seed(server);
});
afterAll(async () => {
  await server.close();
});

/** Awaits a promise that must fail with the SDK's HTTP error of this status. */
async function rejectsWithStatus(promise: Promise<unknown>, status: number): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StreamableHTTPError);
  expect((err as StreamableHTTPError).code).toBe(status);
}

/** The refusal of a credential as the contract words it: 401, the challenge, the RFC 6750 body. */
function expectInvalidToken(session: McpSession, description: string | RegExp): void {
  const answer = lastExchange(session);
  expect(answer.status).toBe(401);
  expect(answer.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", resource_metadata="${server.site.baseUrl}/.well-known/oauth-protected-resource/mcp-http"`,
  );
  expect(Object.keys(answer.body).sort()).toEqual(['error', 'error_description']);
  expect(answer.body.error).toBe('invalid_token');
  if (typeof description === 'string') expect(answer.body.error_description).toBe(description);
  else expect(answer.body.error_description).toMatch(description);
}

async function usageOf(keyId: string) {
  const res = await call(server, 'GET', `/v1/api-keys/${keyId}/usage`, world.owner);
  expect(res.status).toBe(200);
  return res.body as {
    refused: number;
    per_tool: { tool: string; calls: number; refused: number }[];
    recent: { tool: string; outcome: string; status: number }[];
  };
}

describe('credentials that are not accepted: 401 with the RFC 6750 body', () => {
  it('refuses a missing bearer', async () => {
    const session = mcpSession(server, null);
    await rejectsWithStatus(session.connect(), 401);
    expectInvalidToken(session, 'A bearer credential is required.');
  });

  it('refuses an unknown key, and a string that is not a key at all', async () => {
    for (const token of ['egm_AAAAAAAAAAAA_notarealsecretnotarealsecretnotarealsecret', 'not-a-key']) {
      const session = mcpSession(server, token);
      await rejectsWithStatus(session.connect(), 401);
      expectInvalidToken(session, 'The credential is not known to this server.');
    }
  });

  it('refuses a key with a wrong secret', async () => {
    const { key } = await world.key('read', false);
    const session = mcpSession(server, `${key.slice(0, -4)}AAAA`);
    await rejectsWithStatus(session.connect(), 401);
    expectInvalidToken(session, 'The credential is not known to this server.');
  });

  it('refuses a key revoked after the client connected, at its next call', async () => {
    const { id, key } = await world.key('manage', true);
    const session = await connectMcp(server, key);
    await ok(session, 'list_containers');
    expect((await call(server, 'DELETE', `/v1/exposures/${id}`, world.owner)).status).toBe(200);
    await rejectsWithStatus(session.client.listTools(), 401);
    expectInvalidToken(session, 'The credential has been revoked.');
    await rejectsWithStatus(
      session.client.callTool({ name: 'search_memories', arguments: { q: 'oatmeal', container: '*' } }),
      401,
    );
    expectInvalidToken(session, 'The credential has been revoked.');
  });

  it('the challenge names a protected-resource document that exists and names this server', async () => {
    const res = await fetch(`${server.url}/.well-known/oauth-protected-resource/mcp-http`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { resource: string; authorization_servers: string[] };
    expect(doc.resource).toBe(`${server.site.baseUrl}/mcp-http`);
    expect(doc.authorization_servers).toEqual([server.site.baseUrl]);
  });
});

describe('an expired key', () => {
  // Its own server: moving the clock must not touch the other tests' keys.
  let own: TestServer;
  let ownWorld: Seeded;
  beforeAll(async () => {
    own = await startTestServer();
    ownWorld = await seed(own);
  });
  afterAll(() => own.close());

  it('works until its expiry, then answers 401 "expired" on the next call', async () => {
    const { key } = await ownWorld.key('read', false, { expires_in_days: 1 });
    const session = await connectMcp(own, key);
    own.clock.advance(DAY_MS - 1);
    await ok(session, 'list_containers');
    own.clock.advance(1);
    await rejectsWithStatus(session.client.callTool({ name: 'list_containers', arguments: {} }), 401);
    const answer = lastExchange(session);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${own.site.baseUrl}/.well-known/oauth-protected-resource/mcp-http"`,
    );
    expect(answer.body).toEqual({ error: 'invalid_token', error_description: 'The credential has expired.' });

    const fresh = mcpSession(own, key);
    await rejectsWithStatus(fresh.connect(), 401);
    expect(lastExchange(fresh).body.error_description).toBe('The credential has expired.');
  });
});

describe('a tool outside the grant: 403 with the refusal in JSON-RPC, counted as refused', () => {
  const cases = [
    { level: 'read', profile: false, tool: 'add_memory', args: { content: 'x', container: 'c' } },
    { level: 'read', profile: true, tool: 'add_document', args: { content: 'x' } },
    { level: 'suggest', profile: true, tool: 'delete_document', args: { document_id: 'doc_x', confirm: true } },
    { level: 'suggest', profile: false, tool: 'forget_memory', args: { memory_id: 'mem_x' } },
    { level: 'manage', profile: false, tool: 'get_profile', args: {} },
    { level: 'read', profile: false, tool: 'get_profile', args: { q: 'tea' } },
  ] as const;

  for (const { level, profile, tool, args } of cases) {
    it(`refuses ${tool} to a ${level} key ${profile ? 'with' : 'without'} the profile tick, and its usage counts it`, async () => {
      const { id, key } = await world.key(level, profile);
      const session = await connectMcp(server, key);
      const err = await session.client.callTool({ name: tool, arguments: args }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(StreamableHTTPError);
      expect((err as StreamableHTTPError).code).toBe(403);
      const answer = lastExchange(session);
      expect(answer.status).toBe(403);
      // No insufficient_scope challenge: no re-authorization could grant it.
      expect(answer.headers.get('www-authenticate')).toBeNull();
      const message = `The tool ${tool} is not in this credential's capability profile.`;
      expect(answer.body).toEqual({
        jsonrpc: '2.0',
        id: answer.rpcId,
        error: {
          code: -32000,
          message,
          data: { code: 'unauthorized', details: { tool }, retryable: false, trace_id: expect.stringMatching(/^tr_/) },
        },
      });
      expect(answer.headers.get('x-trace-id')).toBe(answer.body.error.data.trace_id);
      // What the SDK's caller reads: the message and the trace id.
      expect((err as Error).message).toContain(message);
      expect((err as Error).message).toContain(answer.body.error.data.trace_id);
      // The session stays usable after a refusal.
      await ok(session, 'list_containers');
      await session.close();

      const usage = await usageOf(id);
      expect(usage.refused).toBe(1);
      expect(usage.per_tool).toContainEqual({ tool, calls: 1, refused: 1 });
      expect(usage.per_tool).toContainEqual({ tool: 'list_containers', calls: 1, refused: 0 });
      expect(usage.recent).toContainEqual(expect.objectContaining({ tool, outcome: 'refused', status: 403 }));
    });
  }

  it('refuses ask_agent (no developer key holds it) with 403, and does not record it', async () => {
    const { id, key } = await world.key('manage', true);
    const session = await connectMcp(server, key);
    for (const name of ['ask_agent', 'agent_invoke']) {
      await rejectsWithStatus(session.client.callTool({ name, arguments: { message: 'What do I eat?' } }), 403);
      expect(refusalIn(lastExchange(session))).toMatchObject({ code: 'unauthorized', details: { tool: 'ask_agent' } });
    }
    await session.close();
    const usage = await usageOf(id);
    expect(usage.refused).toBe(0);
    expect(usage.per_tool.map((t) => t.tool)).not.toContain('ask_agent');
  });

  it('refuses workflow_invoke (held only by a workflow share) with 403, counted as refused', async () => {
    const { id, key } = await world.key('manage', true);
    const session = await connectMcp(server, key);
    await rejectsWithStatus(session.client.callTool({ name: 'workflow_invoke', arguments: { input: {} } }), 403);
    expect(refusalIn(lastExchange(session))).toMatchObject({
      code: 'unauthorized',
      details: { tool: 'workflow_invoke' },
    });
    await session.close();
    expect((await usageOf(id)).per_tool).toContainEqual({ tool: 'workflow_invoke', calls: 1, refused: 1 });
  });
});

describe('tool errors: isError with the envelope in structuredContent', () => {
  let session: McpSession;
  let keyId: string;
  let key: string;
  beforeAll(async () => {
    ({ id: keyId, key } = await world.key('manage', true));
    session = await connectMcp(server, key);
  });
  afterAll(() => session.close());

  it('refuses a container outside reach like a nonexistent one: code unauthorized', async () => {
    const outside = await toolError(session, 'search_memories', { q: 'oatmeal', container: world.secret });
    expect(outside).toMatchObject({ code: 'unauthorized', retryable: false, details: { container: world.secret } });
    expect(outside.message).toBe(`The container ${world.secret} may not be used with this credential.`);
    const byRest = await call(server, 'POST', '/v1/search', key, { q: 'oatmeal', container: world.secret });
    expect(byRest.status).toBe(403);
    expect(withoutTrace(outside)).toEqual(withoutTrace(byRest.body));

    const missing = await toolError(session, 'search_memories', { q: 'oatmeal', container: 'ctr_doesnotexist00' });
    expect(missing).toMatchObject({
      code: 'unauthorized',
      message: 'The container ctr_doesnotexist00 may not be used with this credential.',
    });

    for (const [tool, args] of [
      ['add_document', { container: world.secret, content: 'Sneaky.' }],
      ['add_memory', { container: world.secret, content: 'Sneaky.' }],
      ['list_documents', { container: world.secret }],
    ] as const) {
      expect((await toolError(session, tool, args)).code).toBe('unauthorized');
    }
    expect((await usageOf(keyId)).per_tool).toContainEqual(
      expect.objectContaining({ tool: 'add_document', refused: 1 }),
    );
  });

  it('answers a rule broken (400 on REST) as a validation tool error with the same envelope', async () => {
    const cases = [
      ['search_memories', '/v1/search', { q: '   ', container: '*' }],
      ['add_document', '/v1/documents', { container: world.food, content: 'a', url: 'https://example.org/' }],
      ['add_memory', '/v1/memories', { content: 'No container named, two in reach.' }],
    ] as const;
    for (const [tool, path, args] of cases) {
      const mcp = await toolError(session, tool, args);
      expect(mcp.code).toBe('validation');
      const byRest = await call(server, 'POST', path, key, args);
      expect(byRest.status).toBe(400);
      expect(withoutTrace(mcp)).toEqual(withoutTrace(byRest.body));
    }
  });

  it('answers a malformed input (422 on REST) as a validation tool error naming the fields', async () => {
    const mcp = await toolError(session, 'search_memories', { container: '*' });
    expect(mcp).toMatchObject({ code: 'validation', details: { fields: ['q'] } });
    const byRest = await call(server, 'POST', '/v1/search', key, { container: '*' });
    expect(byRest.status).toBe(422);
    expect(withoutTrace(mcp)).toEqual(withoutTrace(byRest.body));
    expect((await toolError(session, 'search_memories', { q: 'x', limit: 1000 })).details.fields).toEqual(['limit']);
  });

  it('answers an unknown or unreachable document or fact as not_found', async () => {
    const hidden = (await call(server, 'GET', `/v1/documents?container=${world.secret}`, world.owner)).body.documents[0]
      .id;
    for (const id of ['doc_doesnotexist00', hidden]) {
      const mcp = await toolError(session, 'delete_document', { document_id: id });
      expect(mcp).toMatchObject({ code: 'not_found', details: { document_id: id } });
      const byRest = await call(server, 'DELETE', `/v1/documents/${id}`, key);
      expect(byRest.status).toBe(404);
      expect(withoutTrace(mcp)).toEqual(withoutTrace(byRest.body));
    }
    const fact = await toolError(session, 'forget_memory', { memory_id: 'mem_doesnotexist00', confirm: true });
    expect(fact).toMatchObject({ code: 'not_found', details: { memory_id: 'mem_doesnotexist00' } });
  });

  it('answers a tool name it does not know as not_found', async () => {
    expect(await toolError(session, 'no_such_tool')).toMatchObject({
      code: 'not_found',
      message: 'No tool named no_such_tool.',
    });
  });

  it('answers names inherited from Object.prototype as tools it does not know, never a 500', async () => {
    for (const name of [
      '__proto__',
      '__defineGetter__',
      '__lookupSetter__',
      'constructor',
      'toString',
      'hasOwnProperty',
      'valueOf',
    ]) {
      expect(await toolError(session, name)).toMatchObject({ code: 'not_found', message: `No tool named ${name}.` });
      expect(lastExchange(session).status).toBe(200);
    }
  });
});

describe('the confirmation flow', () => {
  it('delete_document and forget_memory without confirm answer a normal result; with confirm they are done', async () => {
    const { key } = await world.key('manage', false);
    const session = await connectMcp(server, key);
    const doc = await world.addDocument(world.work, 'Minutes of the Monday meeting.', 'Minutes');
    for (const args of [{ document_id: doc }, { document_id: doc, confirm: false }]) {
      const asked = await callTool(session, 'delete_document', args);
      expect(asked.isError).toBeFalsy();
      expect(asked.structuredContent).toEqual({
        status: 'confirmation_required',
        verb: 'delete_document',
        how: 'Ask the person to confirm deleting the document "Minutes" and its 1 passage; then call again with confirm=true.',
      });
    }
    expect(await ok(session, 'delete_document', { document_id: doc, confirm: true })).toEqual({
      status: 'deleted',
      id: doc,
      forgotten: { documents: 1, passages: 1, facts: 0 },
      kept: { facts: 0 },
    });
    expect((await toolError(session, 'delete_document', { document_id: doc, confirm: true })).code).toBe('not_found');

    const fact = await world.addFact('Walks the dog at seven.', world.work);
    expect(await ok(session, 'forget_memory', { memory_id: fact })).toMatchObject({
      status: 'confirmation_required',
      verb: 'forget_memory',
    });
    expect(await ok(session, 'forget_memory', { memory_id: fact, confirm: true })).toEqual({
      status: 'forgotten',
      id: fact,
    });
    await session.close();
  });
});

describe('retired tool names', () => {
  let read: McpSession;
  let suggest: McpSession;
  let manage: McpSession;
  let readKey: { id: string; key: string };
  beforeAll(async () => {
    readKey = await world.key('read', false);
    read = await connectMcp(server, readKey.key);
    suggest = await connectMcp(server, (await world.key('suggest', false)).key);
    manage = await connectMcp(server, (await world.key('manage', false)).key);
  });
  afterAll(async () => {
    await read.close();
    await suggest.close();
    await manage.close();
  });

  const RETIRED = [
    'memory_view_query',
    'memory_list',
    'memory_recall',
    'memory_remember',
    'memory_ingest',
    'memory_list_sources',
    'memory_forget',
    'agent_invoke',
  ];

  it('are hidden from tools/list at every level', async () => {
    for (const session of [read, suggest, manage]) {
      const names = (await session.client.listTools()).tools.map((t) => t.name);
      for (const retired of RETIRED) expect(names).not.toContain(retired);
    }
  });

  it('memory_recall answers as search_memories', async () => {
    const args = { q: 'quarterly report', container: '*' };
    expect(await ok(read, 'memory_recall', args)).toEqual(await ok(read, 'search_memories', args));
  });

  it('memory_view_query searches with q and lists containers without it', async () => {
    const args = { q: 'oatmeal', container: world.food };
    expect(await ok(read, 'memory_view_query', args)).toEqual(await ok(read, 'search_memories', args));
    expect(await ok(read, 'memory_view_query')).toEqual(await ok(read, 'list_containers'));
  });

  it('memory_list and memory_list_sources answer as list_containers and list_documents', async () => {
    expect(await ok(read, 'memory_list')).toEqual(await ok(read, 'list_containers'));
    expect(await ok(read, 'memory_list_sources', { container: world.food })).toEqual(
      await ok(read, 'list_documents', { container: world.food }),
    );
  });

  it('memory_remember and memory_ingest write for a key that holds add_memory and add_document', async () => {
    const fact = await ok(suggest, 'memory_remember', { content: 'Plays the cello.', container: world.food });
    expect(fact).toMatchObject({ content: 'Plays the cello.', container: world.food, static: false });
    const doc = await ok(suggest, 'memory_ingest', {
      container: world.food,
      content: 'Cello lessons on Tuesdays.',
      custom_id: 'retired-ingest',
    });
    expect(doc).toMatchObject({ status: 'queued', container: world.food, custom_id: 'retired-ingest' });
  });

  it('memory_forget asks for confirmation as delete_document does, for a Full access key', async () => {
    const doc = await world.addDocument(world.food, 'A note to forget.', 'Forgettable');
    expect(await ok(manage, 'memory_forget', { document_id: doc })).toMatchObject({
      status: 'confirmation_required',
      verb: 'delete_document',
    });
    expect(await ok(manage, 'memory_forget', { document_id: doc, confirm: true })).toMatchObject({
      status: 'deleted',
      id: doc,
      forgotten: { documents: 1 },
    });
  });

  it('are refused with 403 when the credential does not hold the current tool, counted under the current name', async () => {
    for (const [session, name, args, current] of [
      [read, 'memory_remember', { content: 'x', container: world.food }, 'add_memory'],
      [read, 'memory_ingest', { container: world.food, content: 'x' }, 'add_document'],
      [suggest, 'memory_forget', { document_id: 'doc_x' }, 'delete_document'],
    ] as const) {
      await rejectsWithStatus(session.client.callTool({ name, arguments: args }), 403);
      expect(refusalIn(lastExchange(session))).toMatchObject({ code: 'unauthorized', details: { tool: current } });
    }
    const usage = await usageOf(readKey.id);
    expect(usage.per_tool).toContainEqual({ tool: 'add_memory', calls: 1, refused: 1 });
    expect(usage.per_tool).toContainEqual({ tool: 'add_document', calls: 1, refused: 1 });
  });
});

it('never sent an Mcp-Session-Id header back', () => {
  expect(allExchanges.length).toBeGreaterThan(30);
  for (const exchange of allExchanges) expect(exchange.headers.get('mcp-session-id')).toBeNull();
});

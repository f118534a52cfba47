/**
 * What the MCP door adds to its operations, answered in process (test/helpers/app.ts) to the
 * official SDK client: tools/list per credential kind (each developer-key grant, a consent token
 * with and without the profile tick, each kind of share), the resources and prompts each is offered,
 * 401 with the challenge and the RFC 6750 body for a credential it does not accept, 403 with the
 * refusal for a tool outside the grant, and a tool's result equal to REST's answer. The server
 * started on a port, both protocol eras and the stdio bridge are test/e2e/mcp's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import * as ops from '../../src/operations/index';
import {
  connectMcp,
  expectedTools,
  lastExchange,
  type McpSession,
  mcpSession,
  ok,
  refusalIn,
  rejectsWithStatus,
  toolNames,
} from '../e2e/mcp/mcp-client';
import { type InProcessApp, inProcessApp } from '../helpers/app';
import { type Harness, openHarness } from '../helpers/operations';
import { call } from '../helpers/server';

let h: Harness;
let app: InProcessApp;
let notes: string;

beforeAll(async () => {
  h = await openHarness(['Notes', 'Work']);
  app = inProcessApp(h);
  notes = h.containers.Notes!;
});
afterAll(async () => {
  await app.close();
  await h.close();
});

const keyOf = async (level: string, profile: boolean): Promise<{ id: string; key: string }> =>
  h.run(ops.createKey, h.owner, { name: `${level} key`, level, containers: [notes], profile });

/** The names tools/list answers the bearer, through the SDK client. */
async function listed(token: string): Promise<string[]> {
  const session = await connectMcp(app, token);
  try {
    return await toolNames(session);
  } finally {
    await session.close();
  }
}

describe('tools/list per credential kind', () => {
  for (const level of ['read', 'suggest', 'manage'] as const) {
    for (const profile of [false, true]) {
      it(`a ${level} key ${profile ? 'with' : 'without'} the profile tick lists exactly its tools, in the table's order`, async () => {
        expect(await listed((await keyOf(level, profile)).key)).toEqual(expectedTools(level, profile));
      });
    }
  }

  it('a consent token lists what an app connected with OAuth may read, get_profile only with the tick', async () => {
    expect(await listed(await h.consentToken([notes], false))).toEqual(['list_containers', 'search_memories']);
    expect(await listed(await h.consentToken([notes], true))).toEqual([
      'list_containers',
      'search_memories',
      'get_profile',
    ]);
  });

  it('a share lists its one tool: ask_agent for an agent share, workflow_invoke for a workflow', async () => {
    const agent = await h.run(ops.createShare, h.owner, { kind: 'agent_share', name: 'Helper', containers: [notes] });
    expect(await listed(agent.token)).toEqual(['ask_agent']);
    const workflow = await h.run(ops.createShare, h.owner, {
      kind: 'workflow',
      name: 'Digest',
      containers: [notes],
      instruction: 'Summarise the week.',
    });
    expect(await listed(workflow.token)).toEqual(['workflow_invoke']);
  });
});

describe('resources/list and prompts/list per credential kind', () => {
  /** The resource URIs, resource templates and prompt names the bearer is offered, through the SDK client. */
  async function offered(token: string) {
    const session = await connectMcp(app, token);
    try {
      const { client } = session;
      return {
        resources: (await client.listResources()).resources.map((r) => r.uri),
        templates: (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
        prompts: (await client.listPrompts()).prompts.map((p) => p.name),
      };
    } finally {
      await session.close();
    }
  }
  const container = () => `engram://containers/${notes}`;
  const DOCUMENTS = 'engram://documents/{document_id}';

  it('offers a key the profile only with its tick, the containers in its reach, and the prompts its tools serve', async () => {
    expect(await offered((await keyOf('read', true)).key)).toEqual({
      resources: ['engram://profile', container()],
      templates: [DOCUMENTS],
      prompts: ['recall'],
    });
    expect(await offered((await keyOf('suggest', false)).key)).toEqual({
      resources: [container()],
      templates: [DOCUMENTS],
      prompts: ['recall', 'save_decisions'],
    });
  });

  it("offers an app's consent token the profile it was ticked for and recall, nothing more", async () => {
    expect(await offered(await h.consentToken([notes], true))).toEqual({
      resources: ['engram://profile'],
      templates: [],
      prompts: ['recall'],
    });
  });
});

describe('a credential the door does not accept', () => {
  /** 401 with the challenge naming the protected-resource document, and the RFC 6750 body. */
  function expectInvalidToken(session: McpSession, description: string): void {
    const answer = lastExchange(session);
    expect(answer.status).toBe(401);
    expect(answer.headers.get('www-authenticate')).toBe(
      `Bearer error="invalid_token", resource_metadata="${app.url}/.well-known/oauth-protected-resource/mcp-http"`,
    );
    expect(answer.body).toEqual({ error: 'invalid_token', error_description: description });
  }

  it('answers a missing bearer, an unknown one and a revoked key 401, saying which', async () => {
    const none = mcpSession(app, null);
    await rejectsWithStatus(none.connect(), 401);
    expectInvalidToken(none, 'A bearer credential is required.');

    const unknown = mcpSession(app, 'egm_AAAAAAAAAAAA_notarealsecretnotarealsecretnotarealsecret');
    await rejectsWithStatus(unknown.connect(), 401);
    expectInvalidToken(unknown, 'The credential is not known to this server.');

    const { id, key } = await keyOf('read', false);
    const session = await connectMcp(app, key);
    await h.run(ops.revokeKey, h.owner, { key_id: id });
    await rejectsWithStatus(session.client.listTools(), 401);
    expectInvalidToken(session, 'The credential has been revoked.');
  });

  it('answers a tool outside the grant 403 with the refusal in a JSON-RPC error and no challenge; the session goes on', async () => {
    const session = await connectMcp(app, (await keyOf('read', false)).key);
    await rejectsWithStatus(session.client.callTool({ name: 'add_memory', arguments: { content: 'x' } }), 403);
    const answer = lastExchange(session);
    expect(answer.headers.get('www-authenticate')).toBeNull();
    expect(refusalIn(answer)).toEqual({
      code: 'unauthorized',
      message: "The tool add_memory is not in this credential's capability profile.",
      details: { tool: 'add_memory' },
      retryable: false,
      trace_id: expect.stringMatching(/^tr_/),
    });
    await ok(session, 'list_containers');
    await session.close();
  });
});

describe('a tool call', () => {
  it("answers what REST answers for the same call: list_containers, and a refusal's envelope as a tool error", async () => {
    const { key } = await keyOf('manage', true);
    const session = await connectMcp(app, key);
    expect(await ok(session, 'list_containers')).toEqual((await call(app, 'GET', '/v1/containers', key)).body);
    const refused = await session.client.callTool({ name: 'search_memories', arguments: { q: '  ' } });
    expect(refused.isError).toBe(true);
    const rest = await call(app, 'POST', '/v1/search', key, { q: '  ' });
    const { trace_id: _a, ...tool } = refused.structuredContent as Record<string, unknown>;
    const { trace_id: _b, ...answered } = rest.body;
    expect({ status: rest.status, ...tool }).toEqual({ status: 400, ...answered });
    await session.close();
  });
});

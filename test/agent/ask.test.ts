/**
 * Turns against a local OpenAI-compatible model: ask over an agent share (REST and MCP) cites
 * passages and says when memory holds no answer; workflow_invoke runs over MCP; without a model
 * both answer 422; the account runs at most two turns at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { addDocument, expectError, keyFor, makeAccount, type TestAccount } from '../helpers/rest';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { type FakeModel, groundedFixture, startFakeModel } from './fake-model';

async function mcp(server: TestServer, token: string, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${server.url}/mcp-http`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${token}`,
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return { status: res.status, body: (await res.json()) as any };
}

async function share(server: TestServer, owner: string, body: Record<string, unknown>) {
  const res = await call(server, 'POST', '/v1/shares', owner, body);
  if (res.status !== 201) throw new Error(`create_share: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; token: string };
}

describe('ask and workflows with a model', () => {
  let model: FakeModel;
  let server: TestServer;
  let account: TestAccount;
  let food: string;
  let work: string;

  beforeAll(async () => {
    model = startFakeModel(groundedFixture(['breakfast', 'oatmeal', 'standup']));
    server = await startTestServer({
      env: {
        ENGRAM_MODEL_URL: model.url,
        ENGRAM_MODEL: 'test-model',
        ENGRAM_MODEL_KEY: 'sk-test',
        ENGRAM_EMBEDDER: 'none',
      },
    });
    account = await makeAccount(server, ['Food', 'Work']);
    food = account.containers.Food!;
    work = account.containers.Work!;
    const key = await keyFor(server, account.owner, { level: 'suggest', containers: [food, work] });
    await addDocument(server, key, {
      container: food,
      content: 'She eats oatmeal for breakfast every day.',
      title: 'Breakfast',
    });
    await addDocument(server, key, {
      container: work,
      content: 'The team standup is at nine on Mondays.',
      title: 'Standup',
    });
    await server.learning.drain();
  });
  afterAll(async () => {
    await server.close();
    await model.stop();
  });

  it('answers from the shared containers with citations of the passages', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'agent_share',
      name: 'Food agent',
      containers: [food],
    });
    const res = await call(server, 'POST', '/v1/ask', token, { message: 'What is for breakfast?' });
    expect(res.status).toBe(200);
    expect(res.body.answered).toBe(true);
    expect(res.body.answer).toContain('oatmeal');
    expect(res.body.citations).toHaveLength(1);
    expect(res.body.citations[0]).toMatchObject({ n: 1, container: food, container_name: 'Food', title: 'Breakfast' });
    expect(res.body.citations[0].document_id).toBeString();
    // The model was asked with the server's model name and key, for the answer's JSON schema.
    const last = model.requests.at(-1)!;
    expect(last.model).toBe('test-model');
    expect(last.response_format).toMatchObject({
      type: 'json_schema',
      json_schema: { name: 'answer', schema: { required: ['answer', 'answered', 'citations'] } },
    });
    expect(last.max_tokens).toBe(1024);
    expect(model.authorization.at(-1)).toBe('Bearer sk-test');
  });

  it('reads only the shared containers, and says when memory holds no answer', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'agent_share',
      name: 'Food only',
      containers: [food],
    });
    const asked = model.requests.length;
    const res = await call(server, 'POST', '/v1/ask', token, { message: 'When is the standup?' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ answered: false, citations: [] });
    // Nothing relevant in reach: no passage from Work was shown to the model, and no call was needed.
    expect(model.requests.length).toBe(asked);
  });

  it('answers over MCP: the share holds ask_agent only', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'agent_share',
      name: 'MCP agent',
      containers: [food, work],
    });
    const init = await mcp(server, token, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 't', version: '1' },
    });
    expect(init.body.result.instructions).toContain('ask_agent');
    const list = await mcp(server, token, 'tools/list');
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['ask_agent']);
    const res = await mcp(server, token, 'tools/call', { name: 'ask_agent', arguments: { message: 'standup' } });
    expect(res.body.result.isError).toBeUndefined();
    expect(res.body.result.structuredContent).toMatchObject({ answered: true, citations: [{ container: work }] });
    const search = await call(server, 'POST', '/v1/search', token, { q: 'oatmeal', container: food });
    expectError(search, 403, 'unauthorized');
  });

  it('refuses ask for every developer key, without recording it in usage', async () => {
    const key = await call(server, 'POST', '/v1/api-keys', account.owner, {
      name: 'manager',
      level: 'manage',
      all_views: true,
      profile: true,
    });
    const res = await call(server, 'POST', '/v1/ask', key.body.key, { message: 'breakfast' });
    expectError(res, 403, 'unauthorized');
    const usage = await call(server, 'GET', `/v1/api-keys/${key.body.id}/usage`, account.owner);
    expect(usage.body.recent).toEqual([]);
    const list = await mcp(server, key.body.key, 'tools/list');
    const names = list.body.result.tools.map((t: { name: string }) => t.name);
    expect(names).not.toContain('ask_agent');
    expect(names).not.toContain('workflow_invoke');
  });

  it('runs a workflow over MCP with an input object', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'workflow',
      name: 'Meal planner',
      containers: [food],
      instruction: "Plan tomorrow's breakfast from what she eats.",
    });
    const list = await mcp(server, token, 'tools/list');
    expect(list.body.result.tools.map((t: { name: string }) => t.name)).toEqual(['workflow_invoke']);
    const res = await mcp(server, token, 'tools/call', {
      name: 'workflow_invoke',
      arguments: { input: { day: 'Tuesday' } },
    });
    expect(res.body.result.structuredContent).toMatchObject({
      workflow: 'Meal planner',
      answered: true,
      citations: [{ container: food }],
    });
    const system = model.requests.at(-1)!.messages[0]!.content;
    expect(system).toContain("Plan tomorrow's breakfast");
    expect(model.requests.at(-1)!.messages[1]!.content).toContain('{"day":"Tuesday"}');
    // A workflow is MCP only and holds nothing else.
    expectError(await call(server, 'POST', '/v1/ask', token, { message: 'breakfast' }), 403, 'unauthorized');
  });

  it('refuses a revoked share at once', async () => {
    const { id, token } = await share(server, account.owner, {
      kind: 'agent_share',
      name: 'Short lived',
      containers: [food],
    });
    const revoked = await call(server, 'DELETE', `/v1/shares/${id}`, account.owner);
    expect(revoked.body.state).toBe('revoked');
    expectError(await call(server, 'POST', '/v1/ask', token, { message: 'breakfast' }), 403, 'unauthorized');
    const listed = await call(server, 'GET', '/v1/shares', account.owner);
    expect(listed.body.revoked.find((e: { id: string }) => e.id === id)).toMatchObject({ state: 'revoked' });
    expect(JSON.stringify(listed.body)).not.toContain(token);
  });

  it("checks what the owner asks for: a workflow needs an instruction, containers must be the owner's", async () => {
    expectError(
      await call(server, 'POST', '/v1/shares', account.owner, { kind: 'workflow', name: 'w', containers: [food] }),
      400,
      'validation',
    );
    expectError(
      await call(server, 'POST', '/v1/shares', account.owner, { kind: 'agent_share', name: 'a', containers: ['nope'] }),
      400,
      'validation',
    );
    const key = await keyFor(server, account.owner, { level: 'manage', all_views: true });
    expectError(
      await call(server, 'POST', '/v1/shares', key, { kind: 'agent_share', name: 'a', containers: [food] }),
      403,
      'unauthorized',
    );
  });

  it('runs at most two turns at once per account: the third answers 429 rate_limited', async () => {
    const { token } = await share(server, account.owner, { kind: 'agent_share', name: 'Busy', containers: [food] });
    model.delayMs = 300;
    try {
      const answers = await Promise.all(
        [1, 2, 3].map(() => call(server, 'POST', '/v1/ask', token, { message: 'breakfast' })),
      );
      const statuses = answers.map((a) => a.status).sort();
      expect(statuses).toEqual([200, 200, 429]);
      expectError(answers.find((a) => a.status === 429)!, 429, 'rate_limited');
    } finally {
      model.delayMs = 0;
    }
    // The budget is given back when turns end.
    expect((await call(server, 'POST', '/v1/ask', token, { message: 'breakfast' })).status).toBe(200);
  });
});

describe('turns without a model', () => {
  let server: TestServer;
  let account: TestAccount;

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_EMBEDDER: 'none' } });
    account = await makeAccount(server, ['Food']);
  });
  afterAll(() => server.close());

  it('answers ask with 422 capability_unavailable', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'agent_share',
      name: 'No model',
      containers: [account.containers.Food!],
    });
    expectError(await call(server, 'POST', '/v1/ask', token, { message: 'anything' }), 422, 'capability_unavailable');
  });

  it('answers workflow_invoke with a 422 capability_unavailable tool error', async () => {
    const { token } = await share(server, account.owner, {
      kind: 'workflow',
      name: 'w',
      containers: [account.containers.Food!],
      instruction: 'Summarise.',
    });
    const res = await mcp(server, token, 'tools/call', { name: 'workflow_invoke', arguments: { input: {} } });
    expect(res.body.result.isError).toBe(true);
    expect(JSON.parse(res.body.result.content[0].text).code).toBe('capability_unavailable');
  });
});

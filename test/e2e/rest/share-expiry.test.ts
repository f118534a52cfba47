/**
 * Agent shares and workflows over their lifetime, on the movable clock: a share made with
 * `expires_in_days` answers until that moment and is refused on the next call after it, exactly as
 * an expired key is (REST 403 `unauthorized`, MCP 401 `invalid_token`); revocation refuses the very
 * next call, on a client already connected too; expiry values outside the contract's are refused
 * with 422 in the envelope; the owner's listing groups shares as Active, Expired and Revoked.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { type FakeModel, groundedFixture, startFakeModel } from '../../agent/fake-model';
import {
  addDocument,
  DAY_MS,
  expectError,
  expectMalformed,
  keyFor,
  makeAccount,
  signIn,
  type TestAccount,
} from '../../helpers/rest';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import { connectMcp, lastExchange, type McpSession, ok, withoutTrace } from '../mcp/mcp-client';

let model: FakeModel;
let server: TestServer;
let account: TestAccount;
let food: string;

beforeAll(async () => {
  model = startFakeModel(groundedFixture(['breakfast', 'oatmeal']));
  server = await startTestServer({
    env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'test-model', ENGRAM_EMBEDDER: 'none' },
  });
  account = await makeAccount(server, ['Food']);
  food = account.containers.Food!;
  const key = await keyFor(server, account.owner, { level: 'suggest', containers: [food] });
  await addDocument(server, key, {
    container: food,
    content: 'She eats oatmeal for breakfast every day.',
    title: 'Breakfast',
  });
  await server.learning.drain();
});
afterAll(async () => {
  await server.close();
  await model.stop();
});

/** A fresh owner session: the clock moves by days here, and sessions lapse too. */
const owner = () => signIn(server, account);

async function share(body: Record<string, unknown>): Promise<{ id: string; token: string } & Record<string, any>> {
  const res = await call(server, 'POST', '/v1/shares', await owner(), { containers: [food], ...body });
  if (res.status !== 201) throw new Error(`create_share: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

const ask = (token: string) => call(server, 'POST', '/v1/ask', token, { message: 'What is for breakfast?' });
const WORKFLOW = {
  kind: 'workflow',
  name: 'Meal planner',
  instruction: "Plan tomorrow's breakfast from what she eats.",
};
const invokeWorkflow = (session: McpSession) =>
  session.client.callTool({ name: 'workflow_invoke', arguments: { input: { day: 'Tuesday' } } });

/** The group of the owner's listing the share is in, or null when it is not listed. */
async function listedIn(id: string): Promise<string | null> {
  const res = await call(server, 'GET', '/v1/shares', await owner());
  expect(res.status).toBe(200);
  expect(Object.keys(res.body).sort()).toEqual(['active', 'expired', 'revoked']);
  for (const group of ['active', 'expired', 'revoked']) {
    const found = (res.body[group] as { id: string; state: string }[]).find((s) => s.id === id);
    if (found) {
      expect(found.state).toBe(group);
      return group;
    }
  }
  return null;
}

/** Awaits an MCP call that must fail with HTTP 401 and the RFC 6750 body saying why. */
async function refusedOnMcp(session: McpSession, promise: Promise<unknown>, description: string): Promise<void> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StreamableHTTPError);
  expect((err as StreamableHTTPError).code).toBe(401);
  const answer = lastExchange(session);
  expect(answer.headers.get('www-authenticate')).toBe(
    `Bearer error="invalid_token", resource_metadata="${server.site.baseUrl}/.well-known/oauth-protected-resource/mcp-http"`,
  );
  expect(answer.body).toEqual({ error: 'invalid_token', error_description: description });
}

describe('expiry', () => {
  it('an agent share answers until its expiry, then is refused on the next call exactly as an expired key is', async () => {
    const made = await share({ kind: 'agent_share', name: 'Food agent', expires_in_days: 1 });
    expect(made.expires_at).toBe(new Date(server.clock.now() + DAY_MS).toISOString());
    expect(made.state).toBe('active');
    const key = await call(server, 'POST', '/v1/api-keys', await owner(), {
      name: 'day key',
      level: 'read',
      all_views: true,
      expires_in_days: 1,
    });
    const mcp = await connectMcp(server, made.token);

    server.clock.advance(DAY_MS - 1);
    const answered = await ask(made.token);
    expect(answered.status).toBe(200);
    expect(answered.body.answer).toContain('oatmeal');
    expect((await ok(mcp, 'ask_agent', { message: 'breakfast' })).answered).toBe(true);
    expect(await listedIn(made.id)).toBe('active');

    server.clock.advance(1);
    const refused = await ask(made.token);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.details.reason).toBe('expired');
    const keyRefused = await call(server, 'GET', '/v1/containers', key.body.key);
    expect(withoutTrace(refused.body)).toEqual(withoutTrace(keyRefused.body));
    await refusedOnMcp(
      mcp,
      mcp.client.callTool({ name: 'ask_agent', arguments: { message: 'breakfast' } }),
      'The credential has expired.',
    );
    expect(await listedIn(made.id)).toBe('expired');
  });

  it('a 30-day workflow runs on day 29 over MCP and is refused on day 30', async () => {
    const made = await share({ ...WORKFLOW, expires_in_days: 30 });
    const mcp = await connectMcp(server, made.token);
    server.clock.advance(29 * DAY_MS);
    expect((await ok(mcp, 'workflow_invoke', { input: { day: 'Tuesday' } })).workflow).toBe('Meal planner');
    server.clock.advance(DAY_MS);
    await refusedOnMcp(mcp, invokeWorkflow(mcp), 'The credential has expired.');
    expect(await listedIn(made.id)).toBe('expired');
  });

  it('a share made without an expiry still answers years later', async () => {
    const made = await share({ kind: 'agent_share', name: 'For good' });
    expect(made.expires_at).toBeNull();
    server.clock.advance(5 * 365 * DAY_MS);
    expect((await ask(made.token)).status).toBe(200);
    expect(await listedIn(made.id)).toBe('active');
  });

  it('refuses expires_in_days outside 1 to 3650 with 422 naming it, and makes nothing', async () => {
    const session = await owner();
    const before = (await call(server, 'GET', '/v1/shares', session)).body.active.length;
    for (const days of [0, -1, 3651, 1.5, '30', true]) {
      expectMalformed(
        await call(server, 'POST', '/v1/shares', session, {
          kind: 'agent_share',
          name: 's',
          containers: [food],
          expires_in_days: days,
        }),
        'expires_in_days',
      );
    }
    expect((await call(server, 'GET', '/v1/shares', session)).body.active.length).toBe(before);
    const longest = await share({ kind: 'agent_share', name: 'Ten years', expires_in_days: 3650 });
    expect(longest.expires_at).toBe(new Date(server.clock.now() + 3650 * DAY_MS).toISOString());
  });
});

describe('revocation', () => {
  it('refuses an agent share on the very next REST call and MCP call after it is revoked', async () => {
    const made = await share({ kind: 'agent_share', name: 'Short lived' });
    const mcp = await connectMcp(server, made.token);
    expect((await ask(made.token)).status).toBe(200);
    expect((await ok(mcp, 'ask_agent', { message: 'breakfast' })).answered).toBe(true);

    const revoked = await call(server, 'DELETE', `/v1/shares/${made.id}`, await owner());
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: made.id, state: 'revoked' });
    const refused = await ask(made.token);
    expectError(refused, 403, 'unauthorized');
    expect(refused.body.details.reason).toBe('revoked');
    await refusedOnMcp(
      mcp,
      mcp.client.callTool({ name: 'ask_agent', arguments: { message: 'breakfast' } }),
      'The credential has been revoked.',
    );
    expect(await listedIn(made.id)).toBe('revoked');
  });

  it('refuses a workflow on the next MCP call after it is revoked, on a client already connected', async () => {
    const made = await share(WORKFLOW);
    const mcp = await connectMcp(server, made.token);
    await ok(mcp, 'workflow_invoke', { input: { day: 'Monday' } });
    expect((await call(server, 'DELETE', `/v1/shares/${made.id}`, await owner())).status).toBe(200);
    await refusedOnMcp(mcp, invokeWorkflow(mcp), 'The credential has been revoked.');
  });

  it('revoking an expired share keeps it refused and lists it under Revoked for 30 days, then no more', async () => {
    const made = await share({ kind: 'agent_share', name: 'Expired then revoked', expires_in_days: 1 });
    server.clock.advance(DAY_MS);
    expect(await listedIn(made.id)).toBe('expired');
    expect((await call(server, 'DELETE', `/v1/shares/${made.id}`, await owner())).body.state).toBe('revoked');
    expect((await ask(made.token)).body.details.reason).toBe('revoked');
    server.clock.advance(30 * DAY_MS);
    expect(await listedIn(made.id)).toBe('revoked');
    server.clock.advance(1);
    expect(await listedIn(made.id)).toBeNull();
    expectError(await ask(made.token), 403, 'unauthorized');
  });
});

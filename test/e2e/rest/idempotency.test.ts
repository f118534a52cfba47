/**
 * Idempotency keys through the real doors: a write repeated with its key (REST `Idempotency-Key`,
 * MCP `_meta.idempotency_key`) is answered with the first answer and stored once; the same key
 * with another request is 409; keys are per credential and last 24 hours; a first attempt still
 * running makes a repeat 409 (retryable); a failed first attempt is not remembered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { startFakeModel, type FakeModel } from '../../agent/fake-model';
import { type Answer, call, startTestServer, type TestServer } from '../../helpers/server';
import { DAY_MS, expectError, keyFor, listAllDocuments, makeAccount, type TestAccount } from '../../helpers/rest';
import { connectMcp } from '../mcp/mcp-client';

/** One HTTP call with an Idempotency-Key header (none when null). */
async function send(
  server: { url: string },
  method: string,
  path: string,
  token: string,
  key: string | null,
  body?: unknown,
): Promise<Answer> {
  const headers: Record<string, string> = { Authorization: `Bearer ${token}` };
  if (key !== null) headers['Idempotency-Key'] = key;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json(), headers: res.headers };
}

/** A 409 `conflict` envelope with the given retryable flag and reason. */
function expectConflict(res: Answer, retryable: boolean, reason: string): void {
  expect({
    status: res.status,
    code: res.body.code,
    retryable: res.body.retryable,
    reason: res.body.details?.reason,
  }).toEqual({ status: 409, code: 'conflict', retryable, reason });
  expect(res.body.trace_id).toMatch(/^tr_\w+$/);
}

let server: TestServer;
let account: TestAccount;
let accountId: string;
let food: string;
let write: string;
let manage: string;

/** How many facts of the account hold exactly `content`. */
const factsWith = async (content: string) =>
  (await server.services.store.facts.list(accountId)).filter((m) => m.content === content).length;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food']);
  accountId = (await server.services.store.accounts.getByEmail(account.email))!.id;
  food = account.containers.Food!;
  write = await keyFor(server, account.owner, { level: 'suggest', containers: [food] });
  manage = await keyFor(server, account.owner, { level: 'manage', containers: [food] });
}, 30_000);
afterAll(() => server.close());

describe('a write repeated with its Idempotency-Key', () => {
  it('add_memory: the same key and body get the first answer (201, same body, Idempotent-Replayed) and one stored fact', async () => {
    const body = { content: 'Takes the 7:40 train on Mondays.', container: food };
    const first = await send(server, 'POST', '/v1/memories', write, 'key-memory-1', body);
    const again = await send(server, 'POST', '/v1/memories', write, 'key-memory-1', body);
    expect(first.status).toBe(201);
    expect(first.headers.get('Idempotent-Replayed')).toBeNull();
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect(await factsWith(body.content)).toBe(1);
    // Without a key the same body is a new fact, as before.
    await send(server, 'POST', '/v1/memories', write, null, body);
    expect(await factsWith(body.content)).toBe(2);
  });

  it('add_document: the repeat answers 202 with the same id and the document is stored once', async () => {
    const body = { container: food, content: 'Recipe: lentil soup with cumin.', title: 'Idempotent soup' };
    const first = await send(server, 'POST', '/v1/documents', write, 'key-doc-1', body);
    const again = await send(server, 'POST', '/v1/documents', write, 'key-doc-1', body);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('Idempotent-Replayed')).toBe('true');
    expect((await listAllDocuments(server, write, food)).filter((d) => d.title === body.title)).toHaveLength(1);
  });

  it('delete_document and forget_memory: a repeated confirmed removal gets the first answer, not 404', async () => {
    const doc = await send(server, 'POST', '/v1/documents', manage, null, {
      container: food,
      content: 'To be deleted once.',
    });
    const path = `/v1/documents/${doc.body.id}?confirm=true`;
    const deleted = await send(server, 'DELETE', path, manage, 'key-delete-1');
    const deletedAgain = await send(server, 'DELETE', path, manage, 'key-delete-1');
    expect(deleted.status).toBe(200);
    expect(deletedAgain.status).toBe(200);
    expect(deletedAgain.body).toEqual(deleted.body);
    expect(deleted.body).toMatchObject({ status: 'deleted', id: doc.body.id, forgotten: { documents: 1 } });
    expectError(await send(server, 'DELETE', path, manage, null), 404, 'not_found');

    const fact = await send(server, 'POST', '/v1/memories', manage, null, {
      content: 'To be forgotten once.',
      container: food,
    });
    const forgetPath = `/v1/memories/${fact.body.id}?confirm=true`;
    const forgotten = await send(server, 'DELETE', forgetPath, manage, 'key-forget-1');
    const forgottenAgain = await send(server, 'DELETE', forgetPath, manage, 'key-forget-1');
    expect(forgotten.body).toEqual({ status: 'forgotten', id: fact.body.id });
    expect(forgottenAgain.status).toBe(200);
    expect(forgottenAgain.body).toEqual(forgotten.body);
    expect(forgottenAgain.headers.get('Idempotent-Replayed')).toBe('true');
  });

  it('the same key with another body is 409 conflict (not retryable) and saves nothing', async () => {
    await send(server, 'POST', '/v1/memories', write, 'key-reused', { content: 'Likes green tea.', container: food });
    const other = await send(server, 'POST', '/v1/memories', write, 'key-reused', {
      content: 'Likes black tea.',
      container: food,
    });
    expectConflict(other, false, 'key_reused');
    expect(other.headers.get('X-Trace-Id')).toBe(other.body.trace_id);
    expect(await factsWith('Likes black tea.')).toBe(0);
    // Another operation under the same key is another request too.
    const otherOp = await send(server, 'POST', '/v1/documents', write, 'key-reused', {
      container: food,
      content: 'Likes green tea.',
    });
    expectConflict(otherOp, false, 'key_reused');
  });

  it('keys are per credential: another key with the same Idempotency-Key writes on its own', async () => {
    const other = await keyFor(server, account.owner, { level: 'suggest', containers: [food] });
    const body = { content: 'Keeps bees on the roof.', container: food };
    const mine = await send(server, 'POST', '/v1/memories', write, 'key-shared', body);
    const theirs = await send(server, 'POST', '/v1/memories', other, 'key-shared', body);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get('Idempotent-Replayed')).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
    // Each credential's own repeat is still answered from its own first attempt.
    expect((await send(server, 'POST', '/v1/memories', write, 'key-shared', body)).body).toEqual(mine.body);
    expect((await send(server, 'POST', '/v1/memories', other, 'key-shared', body)).body).toEqual(theirs.body);
    expect(await factsWith(body.content)).toBe(2);
  });

  it('a key is remembered for 24 hours: after that the same request is a new write', async () => {
    const body = { content: 'Runs 5 km on Thursdays.', container: food };
    const first = await send(server, 'POST', '/v1/memories', write, 'key-day', body);
    server.clock.advance(DAY_MS - 1);
    const withinDay = await send(server, 'POST', '/v1/memories', write, 'key-day', body);
    expect(withinDay.body).toEqual(first.body);
    server.clock.advance(1);
    const nextDay = await send(server, 'POST', '/v1/memories', write, 'key-day', body);
    expect(nextDay.status).toBe(201);
    expect(nextDay.headers.get('Idempotent-Replayed')).toBeNull();
    expect(nextDay.body.id).not.toBe(first.body.id);
    expect(await factsWith(body.content)).toBe(2);
  });

  it('concurrent duplicates are saved once, and every one gets the same answer', async () => {
    const body = { content: 'Plays chess on Wednesdays.', container: food };
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => send(server, 'POST', '/v1/memories', write, 'key-concurrent', body)),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(8).fill(201));
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers.get('Idempotent-Replayed') === 'true')).toHaveLength(7);
    expect(await factsWith(body.content)).toBe(1);
  });

  it('a refused first attempt is not remembered: the retry with the same key runs for real', async () => {
    const refused = await send(server, 'POST', '/v1/memories', write, 'key-after-refusal', {
      content: '   ',
      container: food,
    });
    expectError(refused, 400, 'validation');
    const retried = await send(server, 'POST', '/v1/memories', write, 'key-after-refusal', {
      content: 'Repairs bicycles.',
      container: food,
    });
    expect(retried.status).toBe(201);
    const again = await send(server, 'POST', '/v1/memories', write, 'key-after-refusal', {
      content: 'Repairs bicycles.',
      container: food,
    });
    expect(again.body).toEqual(retried.body);
    expect(await factsWith('Repairs bicycles.')).toBe(1);
  });

  it('a key that is not 1 to 255 printable ASCII characters is 400 validation, and nothing is saved', async () => {
    const body = { content: 'Never saved under a bad key.', container: food };
    for (const bad of ['', 'k'.repeat(256), 'caf\u00e9']) {
      const res = await send(server, 'POST', '/v1/memories', write, bad, body);
      expectError(res, 400, 'validation');
      expect(res.body.details.fields).toEqual(['Idempotency-Key']);
    }
    expect(await factsWith(body.content)).toBe(0);
    expect((await send(server, 'POST', '/v1/memories', write, 'k'.repeat(255), body)).status).toBe(201);
    // Reads ignore the header: repeating one changes nothing.
    expect(
      (await send(server, 'POST', '/v1/search', write, 'x'.repeat(300), { q: 'tea', container: food })).status,
    ).toBe(200);
  });
});

describe('an MCP tool call with _meta.idempotency_key', () => {
  it('twice: one fact, and the second result is the first', async () => {
    const session = await connectMcp(server, write);
    try {
      const args = { content: 'Speaks Portuguese at home.', container: food };
      const call1 = await session.client.callTool({
        name: 'add_memory',
        arguments: args,
        _meta: { idempotency_key: 'mcp-key-1' },
      });
      const call2 = await session.client.callTool({
        name: 'add_memory',
        arguments: args,
        _meta: { idempotency_key: 'mcp-key-1' },
      });
      expect(call1.isError).toBeFalsy();
      expect(call2.structuredContent).toEqual(call1.structuredContent);
      expect(await factsWith(args.content)).toBe(1);

      const reused = await session.client.callTool({
        name: 'add_memory',
        arguments: { ...args, content: 'Speaks Dutch at home.' },
        _meta: { idempotency_key: 'mcp-key-1' },
      });
      expect(reused.isError).toBe(true);
      expect(reused.structuredContent).toMatchObject({
        code: 'conflict',
        retryable: false,
        details: { reason: 'key_reused' },
      });

      const bad = await session.client.callTool({
        name: 'add_memory',
        arguments: args,
        _meta: { idempotency_key: 'caf\u00e9' },
      });
      expect(bad.structuredContent).toMatchObject({
        code: 'validation',
        details: { fields: ['_meta.idempotency_key'] },
      });
      expect(await factsWith(args.content)).toBe(1);
    } finally {
      await session.close();
    }
  });

  it('REST and MCP share the key: the same request through the other door is answered from the first', async () => {
    const args = { content: 'Grows tomatoes on the balcony.', container: food };
    const rest = await send(server, 'POST', '/v1/memories', write, 'door-key', args);
    const session = await connectMcp(server, write);
    try {
      const viaMcp = await session.client.callTool({
        name: 'add_memory',
        arguments: args,
        _meta: { idempotency_key: 'door-key' },
      });
      expect(viaMcp.structuredContent).toEqual(rest.body);
      expect(await factsWith(args.content)).toBe(1);
    } finally {
      await session.close();
    }
  });
});

describe('a repeat while the first attempt still runs (a static fact merged by a slow model)', () => {
  let slow: TestServer;
  let model: FakeModel;
  let owner: string;
  let slowEmail: string;
  let profileKey: string;

  beforeAll(async () => {
    model = startFakeModel(() => ({ action: 'add', fact: null, content: null }));
    slow = await startTestServer({
      env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' },
    });
    const acct = await makeAccount(slow, ['Home']);
    owner = acct.owner;
    slowEmail = acct.email;
    profileKey = await keyFor(slow, owner, { level: 'suggest', containers: [acct.containers.Home!], profile: true });
    // The model is asked only when the profile already holds a fact.
    expect(
      (await send(slow, 'POST', '/v1/memories', profileKey, null, { content: 'Lives in Lisbon.', static: true }))
        .status,
    ).toBe(201);
  }, 30_000);
  /** Resolves once the model was asked about `content`: the turn is running and waits for its answer. */
  async function modelAsked(content: string): Promise<void> {
    while (!model.requests.some((r) => r.messages.some((m) => m.content.includes(content)))) await Bun.sleep(10);
  }

  afterAll(async () => {
    await slow.close();
    await model.stop();
  });

  it('is refused with 409 conflict (retryable); once the first answers, the retry gets its answer; one fact', async () => {
    model.delayMs = 1500;
    const body = { content: 'Cycles to work.', static: true };
    const first = send(slow, 'POST', '/v1/memories', profileKey, 'key-slow', body);
    await modelAsked(body.content);
    const during = await send(slow, 'POST', '/v1/memories', profileKey, 'key-slow', body);
    expectConflict(during, true, 'in_flight');
    const answered = await first;
    expect(answered.status).toBe(201);
    model.delayMs = 0;
    const after = await send(slow, 'POST', '/v1/memories', profileKey, 'key-slow', body);
    expect(after.status).toBe(201);
    expect(after.body).toEqual(answered.body);
    expect(after.headers.get('Idempotent-Replayed')).toBe('true');
    const profile = await call(slow, 'GET', '/v1/profile', owner);
    expect(profile.body.static.filter((f: any) => f.content === body.content)).toHaveLength(1);
    expect(model.requests.filter((r) => r.messages.some((m) => m.content.includes(body.content)))).toHaveLength(1);
  });

  it('a key its server stopped with while the turn ran is interrupted after a restart: 409, not retryable, nothing saved again', async () => {
    model.delayMs = 800;
    const body = { content: 'Swims in the sea in winter.', static: true };
    const first = send(slow, 'POST', '/v1/memories', profileKey, 'key-crash', body);
    await modelAsked(body.content);
    const { store } = slow.services;
    const accountId = (await store.accounts.getByEmail(slowEmail))!.id;
    const credentialId = profileKey.split('_')[1]!;
    // What the store holds while the turn runs: what a crash at this moment would leave behind.
    const pending = (await store.idempotency.get(accountId, credentialId, 'key-crash', slow.clock.now()))!;
    expect(pending.state).toBe('pending');
    await first;
    model.delayMs = 0;
    await store.idempotency.put(pending);
    slow = await slow.restart();
    // On a shared store a start cannot tell this key from another replica's running one: it is
    // interrupted once older than any turn runs (the next case).
    if (slow.database) slow.clock.advance(15 * 60_000);
    const again = await send(slow, 'POST', '/v1/memories', profileKey, 'key-crash', body);
    expectConflict(again, false, 'interrupted');
    const profile = await call(slow, 'GET', '/v1/profile', owner);
    expect(profile.body.static.filter((f: any) => f.content === body.content)).toHaveLength(1);
  });

  it("a key pending longer than any turn runs is interrupted without a restart (a shared store's stopped replica): 409, not retryable", async () => {
    const body = { content: 'Plays the cello on Sundays.', static: true };
    const answered = await send(slow, 'POST', '/v1/memories', profileKey, 'key-stale', body);
    expect(answered.status).toBe(201);
    const { store } = slow.services;
    const accountId = (await store.accounts.getByEmail(slowEmail))!.id;
    const credentialId = profileKey.split('_')[1]!;
    // As a replica that stopped mid-turn leaves it, with no start of its own to mark it.
    const record = (await store.idempotency.get(accountId, credentialId, 'key-stale', slow.clock.now()))!;
    await store.idempotency.put({ ...record, state: 'pending', response: null });
    expectConflict(await send(slow, 'POST', '/v1/memories', profileKey, 'key-stale', body), true, 'in_flight');
    slow.clock.advance(15 * 60_000);
    expectConflict(await send(slow, 'POST', '/v1/memories', profileKey, 'key-stale', body), false, 'interrupted');
  });
});

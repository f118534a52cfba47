/**
 * The static-add and forget turns: without a model a static fact is stored as given; with one it
 * is merged into the profile (repeats kept once, a change rewrites the old fact and keeps its
 * history). Forget removes exactly the fact. Both count in the account's two-turn budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { MERGE_SYSTEM } from '../../src/agent/merge-static-fact';
import { expectError, keyFor, makeAccount } from '../helpers/rest';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { type ChatRequest, type FakeModel, startFakeModel } from './fake-model';

/** Merge decisions from fixtures: Berlin replaces Paris, a repeat is a duplicate, anything else is new. */
function mergeFixture(req: ChatRequest) {
  if (req.messages[0]!.content !== MERGE_SYSTEM) return { httpStatus: 400 };
  const user = req.messages[1]!.content;
  const facts = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
  const fresh = /New fact: (.*)$/m.exec(user)![1]!;
  const same = facts.find((f) => f.text === fresh);
  if (same) return { action: 'duplicate', fact: same.n, content: null };
  const paris = facts.find((f) => f.text.includes('Paris'));
  if (paris && fresh.includes('Berlin'))
    return { action: 'update', fact: paris.n, content: 'Lives in Berlin (moved from Paris).' };
  return { action: 'add', fact: null, content: null };
}

async function staticFacts(server: TestServer, key: string): Promise<string[]> {
  const res = await call(server, 'GET', '/v1/profile', key);
  return res.body.static.map((f: { content: string }) => f.content).sort();
}

describe('static add and forget with a model', () => {
  let model: FakeModel;
  let server: TestServer;
  let key: string;

  beforeAll(async () => {
    model = startFakeModel(mergeFixture);
    server = await startTestServer({
      env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0', ENGRAM_EMBEDDER: 'none' },
    });
    const account = await makeAccount(server, ['Food']);
    key = await keyFor(server, account.owner, { level: 'manage', all_views: true, profile: true });
  });
  afterAll(async () => {
    await server.close();
    await model.stop();
  });

  it('merges: a repeat is kept once, a change rewrites the old fact and keeps its history', async () => {
    const paris = await call(server, 'POST', '/v1/memories', key, { content: 'Lives in Paris.', static: true });
    expect(paris.status).toBe(201);
    const vegetarian = await call(server, 'POST', '/v1/memories', key, { content: 'Is vegetarian.', static: true });
    const again = await call(server, 'POST', '/v1/memories', key, { content: 'Is vegetarian.', static: true });
    expect(again.body.id).toBe(vegetarian.body.id);
    const moved = await call(server, 'POST', '/v1/memories', key, { content: 'Moved to Berlin.', static: true });
    expect(moved.status).toBe(201);
    expect(moved.body).toMatchObject({
      id: paris.body.id,
      content: 'Lives in Berlin (moved from Paris).',
      static: true,
    });
    expect(await staticFacts(server, key)).toEqual(['Is vegetarian.', 'Lives in Berlin (moved from Paris).']);
    const accountId = (await server.services.store.accounts.list())[0]!.id; // the only account on this server
    expect((await server.services.store.facts.listHistory(accountId, paris.body.id)).map((h) => h.content)).toEqual([
      'Lives in Paris.',
    ]);
  });

  it('stores the fact as given when the model fails', async () => {
    const fixture = model.fixture;
    model.fixture = () => ({ httpStatus: 500 });
    try {
      const res = await call(server, 'POST', '/v1/memories', key, { content: 'Plays the cello.', static: true });
      expect(res.status).toBe(201);
      expect(await staticFacts(server, key)).toContain('Plays the cello.');
    } finally {
      model.fixture = fixture;
    }
  });

  it('forgets exactly the fact, and its history with it', async () => {
    const cat = await call(server, 'POST', '/v1/memories', key, { content: 'Has a cat named Miso.', static: true });
    const before = await staticFacts(server, key);
    const res = await call(server, 'DELETE', `/v1/memories/${cat.body.id}?confirm=true`, key);
    expect(res.body).toEqual({ status: 'forgotten', id: cat.body.id });
    expect(await staticFacts(server, key)).toEqual(before.filter((f) => f !== 'Has a cat named Miso.'));
  });

  it('counts static adds in the two-turn budget: the third at once answers 429', async () => {
    model.delayMs = 300;
    try {
      const answers = await Promise.all(
        ['Likes tea.', 'Likes jazz.', 'Likes chess.'].map((content) =>
          call(server, 'POST', '/v1/memories', key, { content, static: true }),
        ),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([201, 201, 429]);
      expectError(answers.find((a) => a.status === 429)!, 429, 'rate_limited');
    } finally {
      model.delayMs = 0;
    }
  });
});

describe('static add without a model', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('stores the fact as given, repeats included', async () => {
    server = await startTestServer({ env: { ENGRAM_EMBEDDER: 'none' } });
    const account = await makeAccount(server, ['Food']);
    const key = await keyFor(server, account.owner, { level: 'manage', all_views: true, profile: true });
    for (let i = 0; i < 2; i++)
      expect(
        (await call(server, 'POST', '/v1/memories', key, { content: 'Lives in Paris.', static: true })).status,
      ).toBe(201);
    expect(await staticFacts(server, key)).toEqual(['Lives in Paris.', 'Lives in Paris.']);
  });
});

/**
 * Fact extraction in the learning turn, against a local model answering from fixtures: facts with
 * their document and passage, standing truths to the profile's static side and recent changes to
 * the container; a contradicting document updates a fact and keeps its history; a repeat is not
 * saved twice; forget removes exactly the fact; without a model learning still indexes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { EXTRACT_SYSTEM } from '../../src/learning/fact-extractor';
import { mcpSession } from '../e2e/mcp/mcp-client';
import { addDocument, keyFor, makeAccount } from '../helpers/rest';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { type ChatRequest, type FakeModel, startFakeModel } from './fake-model';

function extractFixture(req: ChatRequest) {
  if (req.messages[0]!.content !== EXTRACT_SYSTEM) return { httpStatus: 400 };
  const user = req.messages[1]!.content;
  const known = [...user.matchAll(/^\(F(\d+)\) (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
  const passages = [...user.matchAll(/^\[(\d+)\] (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));
  const facts: unknown[] = [];
  for (const p of passages) {
    if (p.text.includes('I live in Paris')) facts.push({ content: 'Lives in Paris.', passage: p.n, standing: true });
    if (p.text.includes('piano')) facts.push({ content: 'Started learning the piano.', passage: p.n, standing: false });
    if (p.text.includes('lesson to Thursdays'))
      facts.push({ content: 'Has piano lessons on Thursdays.', passage: p.n, standing: false });
    if (p.text.includes('swimming on Fridays'))
      facts.push({ content: 'Goes swimming on Fridays.', passage: p.n, standing: false });
    if (p.text.includes('moved to Berlin')) {
      const paris = known.find((k) => k.text.includes('Paris'));
      facts.push({ content: 'Lives in Berlin.', passage: p.n, standing: true, replaces: paris?.n ?? null });
    }
    if (p.text.includes('still live in Berlin')) {
      const berlin = known.find((k) => k.text.includes('Berlin'));
      facts.push({ content: 'Lives in Berlin, still.', passage: p.n, standing: true, same_as: berlin?.n ?? null });
    }
  }
  return { facts };
}

describe('fact extraction with a model', () => {
  let model: FakeModel;
  let server: TestServer;
  let key: string;
  let diary: string;
  let other: string;

  beforeAll(async () => {
    model = startFakeModel(extractFixture);
    server = await startTestServer({
      env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: 'm', ENGRAM_MODEL_RETRIES: '0' },
    });
    const account = await makeAccount(server, ['Diary', 'Other']);
    diary = account.containers.Diary!;
    other = account.containers.Other!;
    key = await keyFor(server, account.owner, { level: 'manage', containers: [diary], profile: true });
  });
  afterAll(async () => {
    await server.close();
    await model.stop();
  });

  const profile = async () => (await call(server, 'GET', '/v1/profile', key)).body;

  it('saves the facts of a learned document with their document and passage', async () => {
    const doc = await addDocument(server, key, {
      container: diary,
      content: 'Notes from Sunday.\n\nI live in Paris, near the canal.\n\nLast week I started the piano.',
    });
    await server.learning.drain();
    expect((await call(server, 'GET', `/v1/documents/${doc}`, key)).body.learned).toBe(true);
    const p = await profile();
    expect(p.static.map((f: any) => f.content)).toEqual(['Lives in Paris.']);
    expect(p.static[0].source.document_id).toBe(doc);
    expect(p.dynamic.map((f: any) => f.content)).toEqual(['Started learning the piano.']);
    expect(p.dynamic[0]).toMatchObject({ container: diary, source: { document_id: doc } });
    // This short document is one passage (position 0): both facts cite it.
    expect([p.static[0].source.position, p.dynamic[0].source.position]).toEqual([0, 0]);
    // A fact in a container is searchable like any other.
    const hits = (await call(server, 'POST', '/v1/search', key, { q: 'piano', container: diary })).body.results;
    expect(hits.some((h: any) => h.memory_id === p.dynamic[0].id)).toBe(true);
  });

  it('updates a fact from a contradicting document, keeping its history, and does not save a repeat', async () => {
    const before = (await profile()).static[0];
    const moved = await addDocument(server, key, {
      container: diary,
      content: 'Big news: I moved to Berlin in March.',
    });
    await server.learning.drain();
    const after = (await profile()).static;
    expect(after).toHaveLength(1);
    expect(after[0]).toMatchObject({ id: before.id, content: 'Lives in Berlin.', source: { document_id: moved } });
    const accountId = (await server.services.store.accounts.list())[0]!.id;
    expect((await server.services.store.facts.listHistory(accountId, before.id)).map((h) => h.content)).toEqual([
      'Lives in Paris.',
    ]);

    await addDocument(server, key, { container: diary, content: 'I still live in Berlin and love it.' });
    await server.learning.drain();
    expect((await profile()).static.map((f: any) => f.content)).toEqual(['Lives in Berlin.']);
  });

  it('forget removes exactly the fact: its document and the other facts stay', async () => {
    const p = await profile();
    const piano = p.dynamic[0];
    const res = await call(server, 'DELETE', `/v1/memories/${piano.id}?confirm=true`, key);
    expect(res.body).toEqual({ status: 'forgotten', id: piano.id });
    const now = await profile();
    expect(now.dynamic).toEqual([]);
    expect(now.static.map((f: any) => f.content)).toEqual(['Lives in Berlin.']);
    expect((await call(server, 'GET', `/v1/documents/${piano.source.document_id}`, key)).status).toBe(200);
    const hits = (await call(server, 'POST', '/v1/search', key, { q: 'piano', container: diary })).body.results;
    expect(hits.some((h: any) => h.memory_id === piano.id)).toBe(false);
    expect(hits.some((h: any) => h.document_id === piano.source.document_id)).toBe(true);
  });

  it('still learns a document when the model fails: indexed, without facts', async () => {
    const fixture = model.fixture;
    model.fixture = () => ({ httpStatus: 500 });
    try {
      const doc = await addDocument(server, key, {
        container: diary,
        content: 'I live in Paris again? No: a piano recital note.',
      });
      await server.learning.drain();
      expect((await call(server, 'GET', `/v1/documents/${doc}`, key)).body.learned).toBe(true);
      expect((await profile()).dynamic).toEqual([]);
    } finally {
      model.fixture = fixture;
    }
    void other;
  });

  it("says where a learned fact came from in its search hit, over REST and MCP; a document's passage has no source", async () => {
    const doc = await addDocument(server, key, {
      container: diary,
      custom_id: 'lesson-notes',
      content: `${'Groceries and chores for the week, nothing else of note. '.repeat(20)}\n\nThe piano teacher moved my lesson to Thursdays.`,
    });
    await server.learning.drain();
    const swim = await addDocument(server, key, { container: diary, content: 'I go swimming on Fridays now.' });
    await server.learning.drain();
    const facts = (await profile()).dynamic;
    const fact = facts.find((f: any) => f.content === 'Has piano lessons on Thursdays.');
    // The piano paragraph is the document's second passage.
    expect(fact.source).toEqual({ document_id: doc, position: 1 });
    const hits = (
      await call(server, 'POST', '/v1/search', key, { q: 'piano lessons Thursdays', container: diary, limit: 20 })
    ).body.results;
    expect(hits.find((h: any) => h.memory_id === fact.id).source).toEqual({
      document_id: doc,
      custom_id: 'lesson-notes',
      passage: 1,
    });
    const passage = hits.find((h: any) => h.document_id === doc);
    expect(passage.position).toBe(1);
    expect('source' in passage).toBe(false);
    // A document added without a custom_id: null in the source.
    const swims = (await call(server, 'POST', '/v1/search', key, { q: 'swimming Fridays', container: diary })).body
      .results;
    expect(swims.find((h: any) => h.memory_id).source).toEqual({ document_id: swim, custom_id: null, passage: 0 });

    const mcp = mcpSession(server, key);
    await mcp.connect();
    try {
      const found = await mcp.client.callTool({
        name: 'search_memories',
        arguments: { q: 'piano lessons Thursdays', container: diary, limit: 20 },
      });
      const results = (found.structuredContent as { results: any[] }).results;
      expect(results.find((h) => h.memory_id === fact.id).source).toEqual({
        document_id: doc,
        custom_id: 'lesson-notes',
        passage: 1,
      });
    } finally {
      await mcp.close();
    }
  });
});

describe('learning without a model', () => {
  let server: TestServer;
  afterAll(() => server.close());

  it('indexes documents and extracts nothing', async () => {
    server = await startTestServer({ env: { ENGRAM_EMBEDDER: 'none' } });
    const account = await makeAccount(server, ['Diary']);
    const key = await keyFor(server, account.owner, { level: 'manage', all_views: true, profile: true });
    const doc = await addDocument(server, key, { container: account.containers.Diary!, content: 'I live in Paris.' });
    await server.learning.drain();
    expect((await call(server, 'GET', `/v1/documents/${doc}`, key)).body.learned).toBe(true);
    const p = (await call(server, 'GET', '/v1/profile', key)).body;
    expect([p.static, p.dynamic]).toEqual([[], []]);
    expect(
      (await call(server, 'POST', '/v1/search', key, { q: 'Paris', container: account.containers.Diary! })).body
        .results,
    ).toHaveLength(1);
  });
});

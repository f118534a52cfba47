/**
 * Facts after search, against a local endpoint that answers as OpenAI-compatible servers do: a
 * model that is down leaves documents learned and searchable and their facts waiting, uncounted,
 * until it answers; malformed answers are retried after a backoff and then counted as failed; the
 * answer is asked for with a JSON schema sized to the request, and with plain JSON where a server
 * refuses one; short documents of one conversation share a request; only the known facts that bear
 * on a document are shown; what is added by hand is read before an import. /healthz (with a
 * credential) and the Memory page say what the model is doing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { newId } from '../../src/ids';
import { insertDocument } from '../../src/learning/queue';
import { addDocument, makeAccount, keyFor, type TestAccount } from '../helpers/rest';
import { call, startTestServer, type TestServer } from '../helpers/server';
import { type ChatRequest, type FakeModel, factPassages, isCheck, sentenceFacts, startFakeModel } from './fake-model';

/** The known facts a fact request shows: number → text. */
const knownOf = (req: ChatRequest) =>
  [...req.messages[1]!.content.matchAll(/^\(F(\d+)\) (.*)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2]! }));

interface World {
  model: FakeModel;
  server: TestServer;
  account: TestAccount;
  key: string;
}

async function world(name: string, containers = ['Chat']): Promise<World> {
  const model = startFakeModel(sentenceFacts);
  const server = await startTestServer({
    env: { ENGRAM_MODEL_URL: model.url, ENGRAM_MODEL: name, ENGRAM_MODEL_RETRIES: '0' },
  });
  const account = await makeAccount(server, containers);
  const key = await keyFor(server, account.owner, { level: 'manage', all_views: true, profile: true });
  return { model, server, account, key };
}

const health = async (w: World) => (await call(w.server, 'GET', '/healthz', w.key)).body.learning;
const memoryPage = async (w: World) =>
  (await fetch(`${w.server.url}/containers`, { headers: { cookie: `engram_session=${w.account.owner}` } })).text();
const factsOf = async (w: World) =>
  (await w.server.services.store.facts.list((await w.server.services.store.accounts.list())[0]!.id)).map((f) => ({
    content: f.content,
    document: f.sourceDocumentId,
  }));
const extractions = (w: World) => w.model.requests.filter((r) => !isCheck(r));

describe('a model that is down', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('down');
  });
  afterAll(async () => {
    await w.server.close();
    await w.model.stop();
  });

  it('leaves the document learned and searchable and its facts waiting, uncounted, until it answers', async () => {
    w.model.fixture = () => ({ httpStatus: 503 });
    w.model.check = () => ({ httpStatus: 503 });
    const chat = w.account.containers.Chat!;
    const doc = await addDocument(w.server, w.key, { container: chat, content: 'My cat is Whiskers.' });
    await w.server.learning.drain();
    expect((await call(w.server, 'GET', `/v1/documents/${doc}`, w.key)).body.learned).toBe(true);
    const hits = (await call(w.server, 'POST', '/v1/search', w.key, { q: 'Whiskers', container: chat })).body.results;
    expect(hits.map((h: any) => h.document_id)).toEqual([doc]);
    // Asked again and again while down (more often than a malformed answer is tried): never counted against the document.
    for (let i = 0; i < 7; i++) await w.server.learning.drain();
    expect(await health(w)).toMatchObject({
      queue: 0,
      facts: { waiting: 1, failed: 0 },
      model: { name: 'down', state: 'unreachable', error: 'HTTP 503' },
    });
    expect(await memoryPage(w)).toContain(
      'The language model (down) does not answer (HTTP 503). 1 document waits for its facts, asked for again until it does. Search is not affected.',
    );
    expect(await factsOf(w)).toEqual([]);

    w.model.fixture = sentenceFacts;
    w.model.check = () => ({ ok: true });
    await w.server.learning.drain();
    expect(await factsOf(w)).toEqual([{ content: 'Their cat is Whiskers.', document: doc }]);
    const after = await health(w);
    expect(after).toMatchObject({
      facts: { waiting: 0, failed: 0 },
      model: { state: 'ok', format: 'json_schema', error: null },
    });
    expect(after.model.seconds_per_document).toBeNumber();
    expect(await memoryPage(w)).not.toContain('id="model-progress"');
  });
});

describe('a model that answers its check badly', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('chatty');
  });
  afterAll(async () => {
    await w.server.close();
    await w.model.stop();
  });

  it('is there: a document it does not answer for counts against the document, not as the model being down', async () => {
    w.model.fixture = () => ({ httpStatus: 503 });
    w.model.check = () => ({ rawContent: 'Hello! How can I help?' });
    await addDocument(w.server, w.key, { container: w.account.containers.Chat!, content: 'My owl is Hoot.' });
    await w.server.learning.drain();
    expect(await health(w)).toMatchObject({ facts: { waiting: 1, failed: 0 }, model: { state: 'ok', error: null } });
    const { store } = w.server.services;
    const [job] = await store.jobs.claim(w.server.clock.now() + 60_000, 1, undefined, 'facts');
    // Its first attempt was counted: this claim is its second.
    expect(job!.attempts).toBe(2);
  });
});

describe('malformed answers', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('rambling');
  });
  afterAll(async () => {
    await w.server.close();
    await w.model.stop();
  });

  it('are asked again after a backoff, and the good answer saves the facts', async () => {
    let n = 0;
    w.model.fixture = (req) => (++n === 1 ? { rawContent: 'Sure! The person has a cat.' } : sentenceFacts(req));
    const doc = await addDocument(w.server, w.key, {
      container: w.account.containers.Chat!,
      content: 'My dog is Rex.',
    });
    await w.server.learning.drain();
    expect(await health(w)).toMatchObject({ facts: { waiting: 1, failed: 0 }, model: { state: 'ok' } });
    await w.server.learning.drain();
    expect(n).toBe(1); // not before its backoff
    w.server.clock.advance(2_000);
    await w.server.learning.drain();
    expect(await factsOf(w)).toEqual([{ content: 'Their dog is Rex.', document: doc }]);
  });

  it('fail for good after five attempts, counted and shown, the document still learned', async () => {
    w.model.fixture = () => ({ rawContent: '{"facts": [{"content": "Has a fish", "passage": ' });
    const doc = await addDocument(w.server, w.key, {
      container: w.account.containers.Chat!,
      content: 'My fish is Bubbles.',
    });
    for (let i = 0; i < 6; i++) {
      await w.server.learning.drain();
      w.server.clock.advance(60_000);
    }
    expect(await health(w)).toMatchObject({ facts: { waiting: 0, failed: 1 } });
    expect((await call(w.server, 'GET', `/v1/documents/${doc}`, w.key)).body.learned).toBe(true);
    expect(await memoryPage(w)).toContain('The model gave no usable facts for 1 document after every try');
    expect((await factsOf(w)).map((f) => f.document)).not.toContain(doc);
  });
});

describe('what the model is asked', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('asked', ['Chat', 'Other']);
  });
  afterAll(async () => {
    await w.server.close();
    await w.model.stop();
  });

  it('a JSON schema of the passages and known facts it is shown, and max_tokens sized to the answer', async () => {
    const before = extractions(w).length;
    await addDocument(w.server, w.key, { container: w.account.containers.Chat!, content: 'My bike is Blue.' });
    await w.server.learning.drain();
    const [req] = extractions(w).slice(before);
    expect(req!.response_format!.type).toBe('json_schema');
    const fact = (req!.response_format!.json_schema!.schema as any).properties.facts;
    // One short passage, no known fact: one fact (one for each 80 characters), naming passage 1 and no known fact.
    expect(fact.maxItems).toBe(1);
    expect(fact.items.properties.passage).toEqual({ type: 'integer', minimum: 1, maximum: 1 });
    expect(fact.items.properties.same_as).toEqual({ type: 'null' });
    expect(fact.items.required).toEqual(['content', 'passage', 'standing', 'same_as', 'replaces']);
    expect(req!.max_tokens).toBe(16 + 72);
  });

  it('only the known facts that bear on the document', async () => {
    const { store, clock } = w.server.services;
    const accountId = (await store.accounts.list())[0]!.id;
    for (const content of ['Lives in Paris.', 'Plays the cello.', 'Has a dog called Rex.'])
      await store.facts.insert({
        id: newId('mem'),
        accountId,
        containerId: null,
        content,
        title: null,
        static: true,
        createdAt: clock.now(),
        updatedAt: clock.now(),
      });
    const before = extractions(w).length;
    await addDocument(w.server, w.key, {
      container: w.account.containers.Chat!,
      content: 'Big news: I moved to Berlin in March.',
    });
    await w.server.learning.drain();
    const [req] = extractions(w).slice(before);
    expect(knownOf(req!).map((k) => k.text)).toEqual(['Lives in Paris.']);
    expect((req!.response_format!.json_schema!.schema as any).properties.facts.items.properties.replaces).toEqual({
      anyOf: [{ type: 'integer', minimum: 1, maximum: 1 }, { type: 'null' }],
    });
  });

  it('several short documents of one conversation in one request, each fact to its own document; a long one alone', async () => {
    const chat = w.account.containers.Chat!;
    const turns = ['My hat is Red.', 'Nice!', 'My car is Old.', 'My tea is Green.'];
    const ids: string[] = [];
    for (const content of turns) ids.push(await addDocument(w.server, w.key, { container: chat, content }));
    const long = await addDocument(w.server, w.key, {
      container: chat,
      content: `${'A long day at work with meetings and more meetings about nothing much. '.repeat(12)}My desk is Tidy.`,
    });
    const other = await addDocument(w.server, w.key, {
      container: w.account.containers.Other!,
      content: 'My pen is Black.',
    });
    const before = extractions(w).length;
    await w.server.learning.drain();
    const asked = extractions(w)
      .slice(before)
      .map((r) => factPassages(r).map((p) => p.text));
    expect(asked).toHaveLength(3);
    expect(asked[0]).toEqual(turns);
    expect(asked[1]!.join(' ')).toContain('My desk is Tidy.');
    expect(asked[2]).toEqual(['My pen is Black.']);
    const facts = await factsOf(w);
    for (const [content, document] of <[string, string][]>[
      ['Their hat is Red.', ids[0]!],
      ['Their car is Old.', ids[2]!],
      ['Their tea is Green.', ids[3]!],
      ['Their desk is Tidy.', long],
      ['Their pen is Black.', other],
    ])
      expect(facts).toContainEqual({ content, document });
  });

  it('what was added by hand before what an import queued earlier', async () => {
    const { store } = w.server.services;
    const { clock } = w.server;
    const accountId = (await store.accounts.list())[0]!.id;
    const chat = w.account.containers.Other!;
    // Queued as an import queues its documents (src/operations/import-pass.ts): old, and bulk.
    for (const content of ['My mug is White.', 'My sofa is Grey.'])
      await insertDocument(
        store,
        {
          id: newId('doc'),
          accountId,
          containerId: chat,
          title: null,
          content,
          url: null,
          customId: null,
          metadata: null,
          status: 'queued',
          error: null,
          createdAt: clock.now() - 86_400_000,
          updatedAt: clock.now() - 86_400_000,
          learnedAt: null,
        },
        { mode: 'learn' },
        clock.now(),
      );
    clock.advance(1_000);
    await addDocument(w.server, w.key, { container: w.account.containers.Chat!, content: 'My lamp is Bright.' });
    const before = extractions(w).length;
    await w.server.learning.drain();
    expect(
      extractions(w)
        .slice(before)
        .map((r) => factPassages(r).map((p) => p.text)),
    ).toEqual([['My lamp is Bright.'], ['My mug is White.', 'My sofa is Grey.']]);
  });
});

describe('a server that refuses a JSON schema', () => {
  let w: World;
  beforeAll(async () => {
    w = await world('no-schema');
    w.model.refusesSchema = true;
  });
  afterAll(async () => {
    await w.server.close();
    await w.model.stop();
  });

  it('is asked for plain JSON instead, from then on, and the facts are saved', async () => {
    const chat = w.account.containers.Chat!;
    const first = await addDocument(w.server, w.key, { container: chat, content: 'My boat is Swift.' });
    await w.server.learning.drain();
    const second = await addDocument(w.server, w.key, {
      container: chat,
      content: `${'Nothing much happened today, only chores and errands. '.repeat(14)}My kite is Yellow.`,
    });
    await w.server.learning.drain();
    expect(extractions(w).map((r) => r.response_format?.type)).toEqual(['json_schema', 'json_object', 'json_object']);
    expect(await factsOf(w)).toEqual([
      { content: 'Their boat is Swift.', document: first },
      { content: 'Their kite is Yellow.', document: second },
    ]);
    expect((await health(w)).model).toMatchObject({ state: 'ok', format: 'json_object' });
  });
});

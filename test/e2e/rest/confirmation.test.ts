/**
 * The confirmation flow of the destructive tools: without confirm=true a Full access key gets
 * 200 with a confirmation request and nothing is removed; with confirm=true the removal happens
 * and the id then answers 404.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import { addDocument, addMemory, expectError, keyFor, makeAccount, type TestAccount } from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;
let food: string;
let manage: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food']);
  food = account.containers.Food!;
  manage = await keyFor(server, account.owner, { level: 'manage', containers: [food] });
});
afterAll(() => server.close());

async function learnedDocument(content: string, title?: string): Promise<string> {
  const id = await addDocument(server, manage, { container: food, content, title });
  await server.learning.drain();
  return id;
}

const searchHits = async (q: string) =>
  (await call(server, 'POST', '/v1/search', manage, { q, container: food })).body.results;

describe('delete_document', () => {
  for (const [label, query] of [
    ['without confirm', ''],
    ['with confirm=false', '?confirm=false'],
  ]) {
    it(`${label} answers 200 with a confirmation request and deletes nothing`, async () => {
      const id = await learnedDocument('Pancakes with maple syrup on Saturdays.', 'Weekend breakfast');
      const res = await call(server, 'DELETE', `/v1/documents/${id}${query}`, manage);
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['how', 'status', 'verb']);
      expect(res.body.status).toBe('confirmation_required');
      expect(res.body.verb).toBe('delete_document');
      expect(res.body.how).toContain('"Weekend breakfast"');
      expect(res.body.how).toContain('confirm=true');
      expect((await call(server, 'GET', `/v1/documents/${id}`, manage)).status).toBe(200);
      expect((await searchHits('maple syrup')).map((h: any) => h.document_id)).toContain(id);
      await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, manage); // leave the container clean
    });
  }

  it('with confirm=true from a Full access key deletes it everywhere: get 404, gone from lists and search', async () => {
    const id = await learnedDocument('Quince jam from the neighbour.');
    expect((await searchHits('quince')).length).toBe(1);
    const res = await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, manage);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'deleted',
      id,
      forgotten: { documents: 1, passages: 1, facts: 0 },
      kept: { facts: 0 },
    });
    expectError(await call(server, 'GET', `/v1/documents/${id}`, manage), 404, 'not_found');
    expect((await call(server, 'GET', '/v1/documents', manage)).body.documents.map((d: any) => d.id)).not.toContain(id);
    expect(await searchHits('quince')).toEqual([]);
  });

  it('a second confirmed delete of the same id answers 404', async () => {
    const id = await learnedDocument('Deleted twice.');
    expect((await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, manage)).status).toBe(200);
    expectError(await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, manage), 404, 'not_found');
    expectError(await call(server, 'DELETE', `/v1/documents/${id}`, manage), 404, 'not_found');
  });

  it('deleting a document still queued leaves nothing for learning to bring back', async () => {
    const id = await addDocument(server, manage, { container: food, content: 'Gooseberry fool, never learned.' });
    expect((await call(server, 'DELETE', `/v1/documents/${id}?confirm=true`, manage)).status).toBe(200);
    await server.learning.drain();
    expectError(await call(server, 'GET', `/v1/documents/${id}`, manage), 404, 'not_found');
    expect(await searchHits('gooseberry')).toEqual([]);
  });
});

describe('forget_memory', () => {
  for (const [label, query] of [
    ['without confirm', ''],
    ['with confirm=false', '?confirm=false'],
  ]) {
    it(`${label} answers 200 with a confirmation request and forgets nothing`, async () => {
      const id = await addMemory(server, manage, { container: food, content: 'Allergic to hazelnuts.' });
      const res = await call(server, 'DELETE', `/v1/memories/${id}${query}`, manage);
      expect(res.status).toBe(200);
      expect(res.body.status).toBe('confirmation_required');
      expect(res.body.verb).toBe('forget_memory');
      expect(res.body.how).toContain('Allergic to hazelnuts.');
      expect((await searchHits('hazelnuts')).map((h: any) => h.memory_id)).toEqual([id]);
      await call(server, 'DELETE', `/v1/memories/${id}?confirm=true`, manage);
    });
  }

  it('with confirm=true from a Full access key forgets it: gone from search and the profile, then 404', async () => {
    const id = await addMemory(server, manage, { container: food, content: 'Drinks oolong tea.' });
    const res = await call(server, 'DELETE', `/v1/memories/${id}?confirm=true`, manage);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'forgotten', id });
    expect(await searchHits('oolong')).toEqual([]);
    const profile = await call(server, 'GET', '/v1/profile', account.owner);
    expect(profile.body.dynamic.map((f: any) => f.id)).not.toContain(id);
    expectError(await call(server, 'DELETE', `/v1/memories/${id}?confirm=true`, manage), 404, 'not_found');
  });

  it("with a container that is not the fact's answers 404 and forgets nothing", async () => {
    const id = await addMemory(server, manage, { container: food, content: 'Grows basil.' });
    const other = (await call(server, 'POST', '/v1/containers', account.owner, { name: 'Garden' })).body.id;
    expectError(
      await call(server, 'DELETE', `/v1/memories/${id}?container=${other}&confirm=true`, manage),
      404,
      'not_found',
    );
    expect((await searchHits('basil')).length).toBe(1);
    expect(
      (await call(server, 'DELETE', `/v1/memories/${id}?container=${food}&confirm=true`, manage)).body.status,
    ).toBe('forgotten');
  });
});

describe('the level comes before confirmation', () => {
  it('a Read & write key is refused 403 even without confirm, and nothing is removed', async () => {
    const suggest = await keyFor(server, account.owner, { level: 'suggest', containers: [food] });
    const doc = await learnedDocument('Kept safe.');
    const fact = await addMemory(server, manage, { container: food, content: 'Kept fact.' });
    expectError(await call(server, 'DELETE', `/v1/documents/${doc}`, suggest), 403, 'unauthorized');
    expectError(await call(server, 'DELETE', `/v1/memories/${fact}`, suggest), 403, 'unauthorized');
    expect((await call(server, 'GET', `/v1/documents/${doc}`, manage)).status).toBe(200);
    expect((await searchHits('kept fact')).map((h: any) => h.memory_id)).toContain(fact);
  });

  it("a document outside the key's reach answers 404, not a confirmation request", async () => {
    const hidden = (await call(server, 'POST', '/v1/containers', account.owner, { name: 'Hidden' })).body.id;
    const doc = await addDocument(server, account.owner, { container: hidden, content: 'Private.' });
    expectError(await call(server, 'DELETE', `/v1/documents/${doc}`, manage), 404, 'not_found');
    expectError(await call(server, 'DELETE', `/v1/documents/${doc}?confirm=true`, manage), 404, 'not_found');
    expect((await call(server, 'GET', `/v1/documents/${doc}`, account.owner)).status).toBe(200);
  });
});

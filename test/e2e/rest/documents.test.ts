/**
 * Documents over HTTP: custom_id idempotency (also under concurrent adds), the learning state seen
 * through get-document, and list_documents (newest first, cursor pagination, a bad cursor).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import {
  addDocument,
  expectMalformed,
  keyFor,
  listAllDocuments,
  makeAccount,
  type TestAccount,
} from '../../helpers/rest';

let server: TestServer;
let account: TestAccount;
let key: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Inbox', 'Pages', 'Same', 'Cursor', 'Shapes', 'Many']);
  key = await keyFor(server, account.owner, { level: 'suggest', all_views: true });
});
afterAll(() => server.close());

describe('custom_id idempotency', () => {
  it('a second add with the same custom_id answers 200 exists with the same id and starts no second job', async () => {
    const container = account.containers.Inbox;
    const body = { container, content: 'Invoice 42 from the plumber.', custom_id: 'invoice-42' };
    const first = await call(server, 'POST', '/v1/documents', key, body);
    expect(first.status).toBe(202);
    expect(first.body).toEqual({ id: first.body.id, status: 'queued', container, custom_id: 'invoice-42' });
    const second = await call(server, 'POST', '/v1/documents', key, {
      ...body,
      content: 'A different text under the same id.',
    });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ id: first.body.id, status: 'exists', container, custom_id: 'invoice-42' });
    expect(await server.learning.drain()).toBe(1);
    // The first document stands; the replay changed nothing.
    const doc = await call(server, 'GET', `/v1/documents/${first.body.id}`, key);
    expect(doc.body.content).toBe('Invoice 42 from the plumber.');
    expect((await listAllDocuments(server, key, container)).filter((d) => d.custom_id === 'invoice-42')).toHaveLength(
      1,
    );
  });

  it('a replay after the document was learned still answers exists and queues nothing', async () => {
    const body = { container: account.containers.Inbox, content: 'Receipt for boots.', custom_id: 'receipt-boots' };
    const first = await call(server, 'POST', '/v1/documents', key, body);
    expect(await server.learning.drain()).toBe(1);
    const again = await call(server, 'POST', '/v1/documents', key, body);
    expect([again.status, again.body.status, again.body.id]).toEqual([200, 'exists', first.body.id]);
    expect(await server.learning.drain()).toBe(0);
  });

  it('ten concurrent adds of one custom_id queue exactly one document', async () => {
    const body = { container: account.containers.Inbox, content: 'Concurrent note.', custom_id: 'race-1' };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call(server, 'POST', '/v1/documents', key, body)),
    );
    expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 200, 200, 202]);
    expect(answers.filter((a) => a.body.status === 'queued')).toHaveLength(1);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
    expect(await server.learning.drain()).toBe(1);
    expect(
      (await listAllDocuments(server, key, account.containers.Inbox)).filter((d) => d.custom_id === 'race-1'),
    ).toHaveLength(1);
  });

  it('adds without a custom_id are never merged', async () => {
    const body = { container: account.containers.Inbox, content: 'Same text twice.' };
    const [a, b] = [
      await call(server, 'POST', '/v1/documents', key, body),
      await call(server, 'POST', '/v1/documents', key, body),
    ];
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.id).not.toBe(b.body.id);
    expect(a.body.custom_id).toBeNull();
    expect(await server.learning.drain()).toBe(2);
  });
});

describe('get_document', () => {
  it('shows learned false while queued and true once learned, with the record shape of docs/api.md', async () => {
    const id = await addDocument(server, key, {
      container: account.containers.Shapes,
      title: 'Garden',
      content: 'Tomatoes in the greenhouse.',
      custom_id: 'g1',
      metadata: { source: 'notes' },
    });
    const queued = await call(server, 'GET', `/v1/documents/${id}`, key);
    expect(queued.status).toBe(200);
    expect(Object.keys(queued.body).sort()).toEqual([
      'container',
      'content',
      'created_at',
      'custom_id',
      'error',
      'id',
      'learned',
      'metadata',
      'status',
      'title',
      'updated_at',
      'url',
    ]);
    expect(queued.body).toMatchObject({
      id,
      container: account.containers.Shapes,
      title: 'Garden',
      content: 'Tomatoes in the greenhouse.',
      url: null,
      custom_id: 'g1',
      metadata: { source: 'notes' },
      status: 'queued',
      learned: false,
      error: null,
    });
    expect(queued.body.created_at).toBe(new Date(server.clock.now()).toISOString());
    await server.learning.drain();
    const learned = await call(server, 'GET', `/v1/documents/${id}`, key);
    expect([learned.body.status, learned.body.learned]).toEqual(['learned', true]);
  });

  it('lists documents without their content', async () => {
    const listed = await listAllDocuments(server, key, account.containers.Shapes);
    expect(listed).toHaveLength(1);
    expect(listed[0]).not.toHaveProperty('content');
    expect(listed[0].title).toBe('Garden');
  });
});

describe('list_documents', () => {
  it('lists newest first', async () => {
    const container = account.containers.Pages!;
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      ids.push(await addDocument(server, key, { container, content: `Page ${i}.` }));
      server.clock.advance(1000);
    }
    const listed = await listAllDocuments(server, key, container);
    expect(listed.map((d) => d.id)).toEqual(ids.toReversed());
  });

  it('lists documents added within the same millisecond newest first too', async () => {
    const container = account.containers.Same!;
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(await addDocument(server, key, { container, content: `Same-moment note ${i}.` }));
    expect((await listAllDocuments(server, key, container)).map((d) => d.id)).toEqual(ids.toReversed());
  });

  it('pages with next_cursor until it is null, each document once, in order', async () => {
    const container = account.containers.Pages!;
    const all = (await listAllDocuments(server, key, container)).map((d) => d.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `container=${container}&limit=3${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await call(server, 'GET', `/v1/documents?${query}`, key);
      expect(page.status).toBe(200);
      sizes.push(page.body.documents.length);
      seen.push(...page.body.documents.map((d: any) => d.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(all);
  });

  it('a document added between pages does not repeat or shift the later pages', async () => {
    const container = account.containers.Cursor!;
    for (let i = 0; i < 4; i++) {
      await addDocument(server, key, { container, content: `Cursor doc ${i}.` });
      server.clock.advance(1000);
    }
    const first = await call(server, 'GET', `/v1/documents?container=${container}&limit=2`, key);
    await addDocument(server, key, { container, content: 'Added while paging.' });
    const second = await call(
      server,
      'GET',
      `/v1/documents?container=${container}&limit=2&cursor=${first.body.next_cursor}`,
      key,
    );
    const ids = [...first.body.documents, ...second.body.documents].map((d: any) => d.id);
    expect(new Set(ids).size).toBe(4);
    expect(second.body.next_cursor).toBeNull();
  });

  it('the default page holds 50 and the limit may not exceed 200', async () => {
    const container = account.containers.Many!;
    for (let i = 0; i < 51; i++) await addDocument(server, key, { container, content: `Many ${i}.` });
    const first = await call(server, 'GET', `/v1/documents?container=${container}`, key);
    expect(first.body.documents).toHaveLength(50);
    const rest = await call(
      server,
      'GET',
      `/v1/documents?container=${container}&cursor=${first.body.next_cursor}`,
      key,
    );
    expect(rest.body.documents).toHaveLength(1);
    expect(rest.body.next_cursor).toBeNull();
    expectMalformed(await call(server, 'GET', '/v1/documents?limit=201', key), 'limit');
    expect((await call(server, 'GET', '/v1/documents?limit=200', key)).status).toBe(200);
  });

  it('refuses a cursor the server did not give with 422 naming cursor', async () => {
    for (const cursor of ['garbage', 'AAAA', Buffer.from('yesterday:').toString('base64url')]) {
      const res = await call(server, 'GET', `/v1/documents?cursor=${cursor}`, key);
      expectMalformed(res, 'cursor');
    }
  });
});

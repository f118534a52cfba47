// Every method of the contract's method map, through a scripted transport: the HTTP method, path,
// query, body and headers it sends, and that the answer comes back as the server sent it.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { EngramError } from '../dist/index.js';
import { BASE_URL, KEY, makeClient, reply } from './support/helpers.js';

/**
 * Calls `invoke` on a client scripted to answer `answer`, and returns the one request it sent.
 * @param {(client: import('../dist/index.js').Client) => Promise<unknown>} invoke
 */
async function sendOne(invoke, answer = reply(200, { ok: true })) {
  const { client, calls } = makeClient({ script: [answer] });
  const result = await invoke(client);
  assert.equal(calls.length, 1);
  const call = calls[0];
  assert.equal(call.headers.authorization, `Bearer ${KEY}`);
  assert.equal(call.headers.accept, 'application/json');
  assert.equal(call.url.origin, BASE_URL);
  return { call, result };
}

/** The query string as a plain object, for comparing. */
const query = (/** @type {URL} */ url) => Object.fromEntries(url.searchParams.entries());

describe('client.add', () => {
  it('POSTs the document to /v1/documents as JSON and returns the status', async () => {
    const answer = { id: 'doc_1', status: 'queued', container: 'ctr_1', custom_id: 'note-1' };
    const params = {
      container: 'ctr_1',
      content: 'Ada likes tea.',
      custom_id: 'note-1',
      metadata: { src: 'cli' },
      title: 'Tea',
    };
    const { call, result } = await sendOne((c) => c.add(params), reply(202, answer));
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v1/documents');
    assert.equal(call.url.search, '');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.deepEqual(call.body, params);
    assert.deepEqual(result, answer);
  });

  it('sends a url document with the null content left as given', async () => {
    const { call } = await sendOne((c) => c.add({ container: 'ctr_1', url: 'https://example.org/a', content: null }));
    assert.deepEqual(call.body, { container: 'ctr_1', url: 'https://example.org/a', content: null });
  });
});

describe('client.search', () => {
  it('POSTs q, container and limit to /v1/search', async () => {
    const answer = {
      results: [],
      containers: [{ id: 'ctr_1', name: 'Work', error: { code: 'internal', message: 'x' } }],
    };
    const { call, result } = await sendOne((c) => c.search({ q: 'tea', container: '*', limit: 5 }), reply(200, answer));
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v1/search');
    assert.deepEqual(call.body, { q: 'tea', container: '*', limit: 5 });
    assert.deepEqual(result, answer);
  });
});

describe('client.profile', () => {
  it('GETs /v1/profile with no query when q is not given', async () => {
    const { call } = await sendOne((c) => c.profile());
    assert.equal(call.method, 'GET');
    assert.equal(call.url.pathname, '/v1/profile');
    assert.equal(call.url.search, '');
    assert.equal(call.rawBody, undefined);
    assert.equal(call.headers['content-type'], undefined);
  });

  it('passes q in the query string, encoded', async () => {
    const { call } = await sendOne((c) => c.profile({ q: 'tea & coffee' }));
    assert.deepEqual(query(call.url), { q: 'tea & coffee' });
    assert.match(call.url.search, /^\?q=tea\+%26\+coffee$/);
  });
});

describe('client.ask', () => {
  it('POSTs message and model to /v1/ask', async () => {
    const { call, result } = await sendOne(
      (c) => c.ask({ message: 'What tea?', model: 'small' }),
      reply(200, { reply: 'Green.' }),
    );
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v1/ask');
    assert.deepEqual(call.body, { message: 'What tea?', model: 'small' });
    assert.deepEqual(result, { reply: 'Green.' });
  });
});

describe('client.rules', () => {
  it('GETs /v1/rules', async () => {
    const answer = {
      rules: [{ id: 'rul_1', text: 'Never share health facts.', scope: 'account', created_at: '2025-01-01T00:00:00Z' }],
    };
    const { call, result } = await sendOne((c) => c.rules(), reply(200, answer));
    assert.equal(call.method, 'GET');
    assert.equal(call.url.pathname, '/v1/rules');
    assert.deepEqual(result, answer);
  });
});

describe('client.containers.list', () => {
  it('GETs /v1/containers and returns the containers object', async () => {
    const answer = { containers: [{ id: 'ctr_1', name: 'Work', description: '', created_at: '2025-01-01T00:00:00Z' }] };
    const { call, result } = await sendOne((c) => c.containers.list(), reply(200, answer));
    assert.equal(call.method, 'GET');
    assert.equal(call.url.pathname, '/v1/containers');
    assert.equal(call.url.search, '');
    assert.deepEqual(result, answer);
  });
});

describe('client.documents', () => {
  it('list GETs /v1/documents with no query by default', async () => {
    const { call } = await sendOne((c) => c.documents.list(), reply(200, { documents: [], next_cursor: null }));
    assert.equal(call.method, 'GET');
    assert.equal(call.url.pathname, '/v1/documents');
    assert.equal(call.url.search, '');
  });

  it('list passes container, limit and cursor, leaving out null ones', async () => {
    const { call } = await sendOne((c) => c.documents.list({ container: 'ctr_1', limit: 20, cursor: 'cur_9' }));
    assert.deepEqual(query(call.url), { container: 'ctr_1', limit: '20', cursor: 'cur_9' });
    const { call: second } = await sendOne((c) => c.documents.list({ container: null, limit: 5 }));
    assert.deepEqual(query(second.url), { limit: '5' });
  });

  it('get GETs /v1/documents/{id}', async () => {
    const doc = { id: 'doc_1', container: 'ctr_1', learned: true };
    const { call, result } = await sendOne((c) => c.documents.get('doc_1'), reply(200, doc));
    assert.equal(call.method, 'GET');
    assert.equal(call.url.pathname, '/v1/documents/doc_1');
    assert.deepEqual(result, doc);
  });

  it('URL-encodes the id as one path segment', async () => {
    const { call } = await sendOne((c) => c.documents.get('a/b c?d#e'));
    assert.equal(call.url.pathname, '/v1/documents/a%2Fb%20c%3Fd%23e');
    assert.equal(call.url.search, '');
  });

  it('delete without confirm sends no confirm parameter', async () => {
    const { call } = await sendOne((c) => c.documents.delete('doc_1'));
    assert.equal(call.method, 'DELETE');
    assert.equal(call.url.pathname, '/v1/documents/doc_1');
    assert.equal(call.url.search, '');
    assert.equal(call.rawBody, undefined);
  });

  it('delete with confirm: true sends ?confirm=true', async () => {
    const { call, result } = await sendOne(
      (c) => c.documents.delete('doc_1', { confirm: true }),
      reply(200, { status: 'deleted', id: 'doc_1' }),
    );
    assert.equal(call.method, 'DELETE');
    assert.equal(call.url.search, '?confirm=true');
    assert.deepEqual(result, { status: 'deleted', id: 'doc_1' });
  });

  it('delete with confirm: false sends no confirm parameter', async () => {
    const { call } = await sendOne((c) => c.documents.delete('doc_1', { confirm: false }));
    assert.equal(call.url.search, '');
  });
});

describe('client.memories', () => {
  it('add POSTs the fact to /v1/memories', async () => {
    const fact = { id: 'mem_1', content: 'Ada likes tea.', title: null, static: true, container: null };
    const params = { content: 'Ada likes tea.', static: true, title: 'Tea' };
    const { call, result } = await sendOne((c) => c.memories.add(params), reply(201, fact));
    assert.equal(call.method, 'POST');
    assert.equal(call.url.pathname, '/v1/memories');
    assert.equal(call.headers['content-type'], 'application/json');
    assert.deepEqual(call.body, params);
    assert.deepEqual(result, fact);
  });

  it('forget DELETEs /v1/memories/{id} with container and confirm in the query', async () => {
    const { call, result } = await sendOne(
      (c) => c.memories.forget('mem_1', { container: 'ctr_1', confirm: true }),
      reply(200, { status: 'forgotten', id: 'mem_1' }),
    );
    assert.equal(call.method, 'DELETE');
    assert.equal(call.url.pathname, '/v1/memories/mem_1');
    assert.deepEqual(query(call.url), { container: 'ctr_1', confirm: 'true' });
    assert.deepEqual(result, { status: 'forgotten', id: 'mem_1' });
  });

  it('forget without options sends no query', async () => {
    const { call } = await sendOne((c) => c.memories.forget('mem_1'));
    assert.equal(call.url.search, '');
  });
});

describe('empty path parameters', () => {
  const cases = [
    ['documents.get', (/** @type {any} */ c, /** @type {any} */ id) => c.documents.get(id)],
    ['documents.delete', (/** @type {any} */ c, /** @type {any} */ id) => c.documents.delete(id, { confirm: true })],
    ['memories.forget', (/** @type {any} */ c, /** @type {any} */ id) => c.memories.forget(id, { confirm: true })],
  ];
  for (const [name, invoke] of cases) {
    it(`${name} rejects with EngramError before sending for '', blanks and non-strings`, async () => {
      const { client, calls } = makeClient({ script: [] });
      for (const id of ['', '   ', undefined, null, 42]) {
        await assert.rejects(invoke(client, id), (error) => {
          assert.ok(error instanceof EngramError);
          assert.match(error.message, /_id must be a non-empty string/);
          return true;
        });
      }
      assert.equal(calls.length, 0);
    });
  }
});

describe('base URL', () => {
  it('keeps a path prefix and drops trailing slashes', async () => {
    const { client, calls } = makeClient({
      script: [reply(200, { rules: [] })],
      baseURL: 'https://example.org/engram///',
    });
    assert.equal(client.baseURL, 'https://example.org/engram');
    await client.rules();
    assert.equal(calls[0].url.href, 'https://example.org/engram/v1/rules');
  });
});

describe('answers', () => {
  it('resolves an empty 2xx body as undefined', async () => {
    const { result } = await sendOne((c) => c.documents.delete('doc_1', { confirm: true }), reply(204));
    assert.equal(result, undefined);
  });
});

/**
 * Validation over HTTP: the contract's rules answer 400 `validation`, a malformed body 422
 * `validation` naming the field, an unknown id 404 `not_found`; every error carries the envelope
 * and the X-Trace-Id header; and a request that fails changes nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { call, startTestServer, type TestServer } from '../../helpers/server';
import {
  expectError,
  expectMalformed,
  keyFor,
  listAllDocuments,
  makeAccount,
  type TestAccount,
} from '../../helpers/rest';

const MiB = 1024 * 1024;

let server: TestServer;
let account: TestAccount;
let food: string;
/** Full access, two containers in reach. */
let two: string;
/** Read & write, exactly one container (Food) in reach. */
let one: string;

beforeAll(async () => {
  server = await startTestServer();
  account = await makeAccount(server, ['Food', 'Travel']);
  food = account.containers.Food!;
  two = await keyFor(server, account.owner, { level: 'manage', all_views: true, profile: true });
  one = await keyFor(server, account.owner, { level: 'suggest', containers: [food] });
});
afterAll(() => server.close());

describe('rules of the contract answer 400 validation', () => {
  it('refuses an empty q on search', async () => {
    for (const q of ['', '   ', '\n\t']) {
      const res = await call(server, 'POST', '/v1/search', two, { q, container: food });
      expectError(res, 400, 'validation');
      expect(res.body.details.fields).toEqual(['q']);
    }
  });

  it('refuses add_document with both content and url', async () => {
    const res = await call(server, 'POST', '/v1/documents', two, {
      container: food,
      content: 'text',
      url: 'https://example.org/',
    });
    expectError(res, 400, 'validation');
    expect(res.body.details.fields).toEqual(['content', 'url']);
  });

  it('refuses add_document with neither content nor url (null counts as absent)', async () => {
    for (const body of [{ container: food }, { container: food, content: null, url: null }]) {
      const res = await call(server, 'POST', '/v1/documents', two, body);
      expectError(res, 400, 'validation');
      expect(res.body.details.fields).toEqual(['content', 'url']);
    }
  });

  const OMITTED: Array<[string, string, Record<string, unknown>]> = [
    ['search_memories', '/v1/search', { q: 'bread' }],
    ['add_document', '/v1/documents', { content: 'Rye bread on Mondays.' }],
    ['add_memory', '/v1/memories', { content: 'Likes rye bread.' }],
  ];

  for (const [tool, path, body] of OMITTED) {
    it(`${tool}: container omitted with several in reach is 400 validation naming container`, async () => {
      const res = await call(server, 'POST', path, two, body);
      expectError(res, 400, 'validation');
      expect(res.body.details.fields).toEqual(['container']);
      expect(res.body.details.in_reach).toBe(2);
    });
  }

  it('search: container omitted with exactly one in reach searches that one', async () => {
    await call(server, 'POST', '/v1/memories', two, { container: food, content: 'Bakes sourdough bread weekly.' });
    const res = await call(server, 'POST', '/v1/search', one, { q: 'sourdough' });
    expect(res.status).toBe(200);
    expect(res.body.containers).toEqual([{ id: food, name: 'Food' }]);
    expect(res.body.results[0].content).toBe('Bakes sourdough bread weekly.');
  });

  it('add_document: container omitted with exactly one in reach adds it there', async () => {
    const res = await call(server, 'POST', '/v1/documents', one, { content: 'Rye bread on Mondays.' });
    expect(res.status).toBe(202);
    expect(res.body.container).toBe(food);
  });

  it('add_memory: container omitted with exactly one in reach saves it there', async () => {
    const res = await call(server, 'POST', '/v1/memories', one, { content: 'Likes rye bread.' });
    expect(res.status).toBe(201);
    expect(res.body.container).toBe(food);
  });

  it('container omitted with none in reach is 400 validation', async () => {
    const none = await keyFor(server, account.owner, { level: 'suggest' });
    const res = await call(server, 'POST', '/v1/memories', none, { content: 'Likes rye bread.' });
    expectError(res, 400, 'validation');
    expect(res.body.details.fields).toEqual(['container']);
  });
});

describe('a malformed request answers 422 validation naming the field', () => {
  it('refuses a body that is not JSON', async () => {
    const res = await call(server, 'POST', '/v1/search', two, '{"q": "bread"');
    expectMalformed(res, '(body)');
    expect(res.body.message).toBe('The body is not valid JSON.');
  });

  it('refuses a JSON body that is not an object', async () => {
    for (const body of ['[]', '"q"', '42', 'null'])
      expectMalformed(await call(server, 'POST', '/v1/search', two, body), '(body)');
  });

  it('refuses a missing required field', async () => {
    expectMalformed(await call(server, 'POST', '/v1/search', two, { container: food }), 'q');
    expectMalformed(await call(server, 'POST', '/v1/memories', two, { container: food }), 'content');
    expectMalformed(await call(server, 'POST', '/v1/api-keys', account.owner, { name: 'no level' }), 'level');
  });

  it('refuses fields of the wrong type', async () => {
    const cases: Array<[string, Record<string, unknown>, string]> = [
      ['/v1/search', { q: 5, container: food }, 'q'],
      ['/v1/search', { q: 'bread', container: food, limit: '5' }, 'limit'],
      ['/v1/search', { q: 'bread', container: food, limit: 2.5 }, 'limit'],
      ['/v1/search', { q: 'bread', container: 7 }, 'container'],
      ['/v1/memories', { content: 'x', container: food, static: 'yes' }, 'static'],
      ['/v1/documents', { container: food, content: 'x', metadata: ['a'] }, 'metadata'],
      ['/v1/documents', { container: food, content: 'x', metadata: 'a' }, 'metadata'],
      ['/v1/documents', { container: food, content: ['x'] }, 'content'],
      ['/v1/documents', { container: food, content: 'x', custom_id: 12 }, 'custom_id'],
    ];
    for (const [path, body, field] of cases) expectMalformed(await call(server, 'POST', path, two, body), field);
  });

  it('refuses search limit 0 and 101; accepts 1 and 100', async () => {
    for (const limit of [0, 101, -1]) {
      const res = await call(server, 'POST', '/v1/search', two, { q: 'bread', container: food, limit });
      expectMalformed(res, 'limit');
      expect(res.body.details.fields).toEqual(['limit']);
    }
    for (const limit of [1, 100])
      expect((await call(server, 'POST', '/v1/search', two, { q: 'bread', container: food, limit })).status).toBe(200);
  });

  it('refuses a query parameter of the wrong type (limit=0, limit=ten, confirm=yes)', async () => {
    expectMalformed(await call(server, 'GET', '/v1/documents?limit=0', two), 'limit');
    expectMalformed(await call(server, 'GET', '/v1/documents?limit=ten', two), 'limit');
    const doc = await call(server, 'POST', '/v1/documents', two, { container: food, content: 'Kept.' });
    expectMalformed(await call(server, 'DELETE', `/v1/documents/${doc.body.id}?confirm=yes`, two), 'confirm');
    expect((await call(server, 'GET', `/v1/documents/${doc.body.id}`, two)).status).toBe(200);
  });

  it('refuses content over 1 MiB, counted in bytes, and accepts exactly 1 MiB', async () => {
    const over = await call(server, 'POST', '/v1/documents', two, { container: food, content: 'a'.repeat(MiB + 1) });
    expectMalformed(over, 'content');
    expect(over.body.message).toContain(String(MiB));
    // 524,289 two-byte characters: under the limit in characters, over it in bytes.
    expectMalformed(
      await call(server, 'POST', '/v1/documents', two, { container: food, content: 'é'.repeat(MiB / 2 + 1) }),
      'content',
    );
    expectMalformed(
      await call(server, 'POST', '/v1/memories', two, { container: food, content: 'a'.repeat(MiB + 1) }),
      'content',
    );
    expect(
      (await call(server, 'POST', '/v1/documents', two, { container: food, content: 'a'.repeat(MiB) })).status,
    ).toBe(202);
  });

  it('refuses metadata over 16 KiB as JSON, and accepts exactly 16 KiB', async () => {
    const exactly = { a: 'x'.repeat(16 * 1024 - '{"a":""}'.length) };
    expect(JSON.stringify(exactly).length).toBe(16 * 1024);
    const over = await call(server, 'POST', '/v1/documents', two, {
      container: food,
      content: 'x',
      metadata: { a: `${exactly.a}x` },
    });
    expectMalformed(over, 'metadata');
    expect(over.body.message).toContain(String(16 * 1024));
    expect(
      (await call(server, 'POST', '/v1/documents', two, { container: food, content: 'x', metadata: exactly })).status,
    ).toBe(202);
  });

  it('refuses a title over 512 characters, and accepts exactly 512', async () => {
    const over = await call(server, 'POST', '/v1/documents', two, {
      container: food,
      content: 'x',
      title: 't'.repeat(513),
    });
    expectMalformed(over, 'title');
    expect(over.body.message).toContain('512');
    expectMalformed(
      await call(server, 'POST', '/v1/memories', two, { container: food, content: 'x', title: 't'.repeat(513) }),
      'title',
    );
    expect(
      (await call(server, 'POST', '/v1/documents', two, { container: food, content: 'x', title: 't'.repeat(512) }))
        .status,
    ).toBe(202);
  });

  it('refuses a q over 4 KiB', async () => {
    expectMalformed(await call(server, 'POST', '/v1/search', two, { q: 'q'.repeat(4097), container: food }), 'q');
  });

  it('names every bad field at once', async () => {
    const res = await call(server, 'POST', '/v1/documents', two, { container: food, content: 1, title: 2 });
    expectMalformed(res, 'content');
    expect(res.body.details.fields.sort()).toEqual(['content', 'title']);
  });
});

describe('unknown ids answer 404 not_found', () => {
  it('get_document, delete_document and forget_memory with an id that does not exist', async () => {
    const cases: Array<[string, string, string]> = [
      ['GET', '/v1/documents/doc_doesnotexist', 'document_id'],
      ['DELETE', '/v1/documents/doc_doesnotexist', 'document_id'],
      ['DELETE', '/v1/documents/doc_doesnotexist?confirm=true', 'document_id'],
      ['DELETE', '/v1/memories/mem_doesnotexist', 'memory_id'],
      ['DELETE', '/v1/memories/mem_doesnotexist?confirm=true', 'memory_id'],
    ];
    for (const [method, path, field] of cases) {
      const res = await call(server, method, path, two);
      expectError(res, 404, 'not_found');
      expect(Object.keys(res.body.details)).toEqual([field]);
    }
  });

  it('the owner routes answer 404 for an unknown key, container or rule', async () => {
    for (const [method, path, body] of [
      ['PATCH', '/v1/api-keys/nokey', { level: 'read' }],
      ['GET', '/v1/api-keys/nokey/usage'],
      ['PATCH', '/v1/exposures/nokey/views', { containers: [] }],
      ['DELETE', '/v1/exposures/nokey'],
      ['PATCH', '/v1/containers/ctr_none', { name: 'x' }],
      ['DELETE', '/v1/containers/ctr_none'],
      ['DELETE', '/v1/rules/rul_none'],
    ] as Array<[string, string, unknown?]>) {
      expectError(await call(server, method, path, account.owner, body), 404, 'not_found');
    }
  });

  it('an unknown route answers 404 not_found with the envelope', async () => {
    expectError(await call(server, 'GET', '/v1/nothing-here', two), 404, 'not_found');
  });
});

describe('the envelope and the trace id', () => {
  it('every answer, success or error, carries X-Trace-Id; each request gets its own', async () => {
    const answers = [
      await call(server, 'GET', '/v1/containers', two),
      await call(server, 'POST', '/v1/search', two, { q: 'bread', container: food }),
      await call(server, 'GET', '/v1/containers'),
      await call(server, 'GET', '/v1/containers', 'bad'),
      await call(server, 'POST', '/v1/search', two, { q: '' }),
      await call(server, 'POST', '/v1/search', two, '{'),
      await call(server, 'GET', '/healthz'),
    ];
    const ids = answers.map((a) => a.headers.get('X-Trace-Id'));
    for (const id of ids) expect(id).toMatch(/^tr_\w{20}$/);
    expect(new Set(ids).size).toBe(answers.length);
    for (const a of answers.filter((a) => a.status >= 400)) expect(a.body.trace_id).toBe(a.headers.get('X-Trace-Id'));
  });
});

describe('a failed request changes nothing', () => {
  it('refused and invalid adds leave the document count and the learning queue unchanged', async () => {
    await server.learning.drain();
    const before = (await listAllDocuments(server, account.owner)).length;
    const read = await keyFor(server, account.owner, { level: 'read', all_views: true });
    const failures = [
      await call(server, 'POST', '/v1/documents', read, { container: food, content: 'above the level' }),
      await call(server, 'POST', '/v1/documents', one, {
        container: account.containers.Travel,
        content: 'outside reach',
      }),
      await call(server, 'POST', '/v1/documents', two, {
        container: food,
        content: 'both',
        url: 'https://example.org/',
      }),
      await call(server, 'POST', '/v1/documents', two, { container: food, content: 'a'.repeat(MiB + 1) }),
      await call(server, 'POST', '/v1/documents', two, {
        container: food,
        content: 'x',
        metadata: { a: 'x'.repeat(17_000) },
      }),
      await call(server, 'POST', '/v1/documents', two, { content: 'no container' }),
      await call(server, 'POST', '/v1/documents', 'egm_bad_bad', { container: food, content: 'bad token' }),
    ];
    expect(failures.map((f) => f.status)).toEqual([403, 403, 400, 422, 422, 400, 403]);
    expect((await listAllDocuments(server, account.owner)).length).toBe(before);
    expect(await server.learning.drain()).toBe(0);
  });

  it('refused and invalid add_memory calls leave search and the profile unchanged', async () => {
    const read = await keyFor(server, account.owner, { level: 'read', all_views: true, profile: true });
    const noProfile = await keyFor(server, account.owner, { level: 'suggest', all_views: true });
    await call(server, 'POST', '/v1/memories', read, { container: food, content: 'Zanzibar holiday planned.' });
    await call(server, 'POST', '/v1/memories', noProfile, { static: true, content: 'Zanzibar is home.' });
    await call(server, 'POST', '/v1/memories', two, { content: 'Zanzibar no container.' });
    const found = await call(server, 'POST', '/v1/search', two, { q: 'Zanzibar', container: '*' });
    expect(found.body.results).toEqual([]);
    const profile = await call(server, 'GET', '/v1/profile', two);
    expect(JSON.stringify(profile.body)).not.toContain('Zanzibar');
  });
});

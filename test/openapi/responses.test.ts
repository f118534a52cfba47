/**
 * What the running server really answers conforms to its own OpenAPI document: for a sample of
 * every operation, successes and refusals alike, the status is one the document lists for that
 * operation and the JSON body validates (ajv, JSON Schema 2020-12) against that response's schema.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import type { ValidateFunction } from 'ajv/dist/2020';
import { OPENAPI_PATH } from '../../src/http/openapi';
import { addDocument, addMemory, keyFor, makeAccount, type TestAccount } from '../helpers/rest';
import { type Answer, call, startTestServer, type TestServer } from '../helpers/server';
import { compilerFor, conformance, type OpenApiDocument, operationFor, operationsOf } from './support';

describe('real answers against the OpenAPI document', () => {
  let server: TestServer;
  let doc: OpenApiDocument;
  let compile: (schema: unknown) => ValidateFunction;
  let account: TestAccount;
  /** Every answer checked: `operationId status`, to show the sample covers each operation. */
  const seen = new Map<string, Set<number>>();

  beforeAll(async () => {
    server = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '1000' } });
    doc = (await (await fetch(`${server.url}${OPENAPI_PATH}`)).json()) as OpenApiDocument;
    compile = compilerFor(doc);
    account = await makeAccount(server, ['Food', 'Work']);
  });
  afterAll(() => server.close());

  /** Makes the call, checks the answer against the document, and returns it for further use. */
  async function checked(
    method: string,
    path: string,
    token: string | null,
    body?: unknown,
    expected?: number,
  ): Promise<Answer> {
    const answer = await call(server, method, path, token, body);
    const problems = conformance(doc, compile, {
      method,
      path,
      status: answer.status,
      contentType: answer.headers.get('content-type'),
      body: answer.body,
    });
    expect(problems).toEqual([]);
    if (expected !== undefined) expect(answer.status).toBe(expected);
    const id = operationFor(doc, method, path)!.operation.operationId;
    if (!seen.has(id)) seen.set(id, new Set());
    seen.get(id)!.add(answer.status);
    return answer;
  }

  it('the tools: successes, confirmation requests and every refusal status', async () => {
    const {
      owner,
      containers: { Food: food, Work: work },
    } = account;
    const full = await keyFor(server, owner, { level: 'manage', containers: [food, work], profile: true });
    const reader = await keyFor(server, owner, { level: 'read', containers: [food] });

    await checked('GET', '/v1/containers', full, undefined, 200);
    await checked('GET', '/v1/containers', null, undefined, 401);
    await checked(
      'GET',
      '/v1/containers',
      'egm_nosuchkey000_0000000000000000000000000000000000000000000',
      undefined,
      403,
    );

    const docId = (
      await checked(
        'POST',
        '/v1/documents',
        full,
        {
          container: food,
          content: 'She eats oatmeal for breakfast.',
          custom_id: 'oat',
          metadata: { n: 1 },
          title: 'Food',
        },
        202,
      )
    ).body.id;
    await checked('POST', '/v1/documents', full, { container: food, content: 'again', custom_id: 'oat' }, 200);
    await checked('POST', '/v1/documents', full, { container: food, content: 'x', url: 'https://example.org/' }, 400);
    await checked('POST', '/v1/documents', reader, { content: 'x' }, 403);
    await checked('POST', '/v1/documents', full, { container: food, content: 7 }, 422);
    await checked('POST', '/v1/documents', full, '{not json', 422);
    await addDocument(server, full, { container: work, url: 'https://example.invalid/report' });
    await server.learning.drain();

    await checked('POST', '/v1/search', full, { q: 'breakfast', container: '*' }, 200);
    await checked('POST', '/v1/search', full, { q: 'breakfast', container: food, limit: 1 }, 200);
    await checked('POST', '/v1/search', full, { q: ' ' }, 400);
    await checked('POST', '/v1/search', reader, { q: 'x', container: work }, 403);
    await checked('POST', '/v1/search', full, { q: 'x', limit: 0 }, 422);

    const factId = await addMemory(server, full, { content: 'Likes tea.', container: food });
    await checked('POST', '/v1/memories', full, { content: 'Born in Lisbon.', static: true, title: 'Origin' }, 201);
    await checked('POST', '/v1/memories', full, { content: 'Plays chess.', container: work }, 201);
    await checked('POST', '/v1/memories', full, { content: 'No container given.' }, 400);
    await checked('POST', '/v1/memories', full, {}, 422);

    await checked('GET', '/v1/profile', full, undefined, 200);
    await checked('GET', '/v1/profile?q=tea', full, undefined, 200);
    await checked('GET', '/v1/profile', reader, undefined, 403);

    await checked('GET', '/v1/documents', full, undefined, 200);
    await checked('GET', `/v1/documents?container=${food}`, full, undefined, 200);
    const page = await checked('GET', '/v1/documents?limit=1', full, undefined, 200);
    expect(page.body.next_cursor).toBeString();
    await checked('GET', `/v1/documents?limit=1&cursor=${page.body.next_cursor}`, full, undefined, 200);
    await checked('GET', '/v1/documents?limit=0', full, undefined, 422);
    await checked('GET', `/v1/documents?container=${work}`, reader, undefined, 403);

    await checked('GET', `/v1/documents/${docId}`, full, undefined, 200);
    await checked('GET', '/v1/documents/doc_nope', full, undefined, 404);
    await checked('GET', `/v1/documents/${'%F0%9F%8D%8E'.repeat(1500)}`, full, undefined, 431);

    await checked('GET', '/v1/rules', full, undefined, 200);
    await checked('GET', '/v1/rules', null, undefined, 401);

    await checked('DELETE', `/v1/documents/${docId}`, full, undefined, 200);
    await checked('DELETE', `/v1/documents/${docId}?confirm=true`, full, undefined, 200);
    await checked('DELETE', `/v1/documents/${docId}?confirm=true`, full, undefined, 404);
    await checked('DELETE', `/v1/documents/${docId}?confirm=true`, reader, undefined, 403);
    await checked('DELETE', `/v1/documents/${docId}?confirm=maybe`, full, undefined, 422);

    await checked('DELETE', `/v1/memories/${factId}`, full, undefined, 200);
    await checked('DELETE', `/v1/memories/${factId}?container=${food}&confirm=true`, full, undefined, 200);
    await checked('DELETE', `/v1/memories/${factId}?confirm=true`, full, undefined, 404);
  });

  it("the owner's routes and the session", async () => {
    const {
      owner,
      email,
      password,
      containers: { Food: food },
    } = account;
    const key = await keyFor(server, owner, { level: 'read', containers: [food] });
    const keyId = key.split('_')[1]!;

    const made = (await checked('POST', '/v1/containers', owner, { name: 'Travel', description: 'Trips' }, 201)).body
      .id;
    await checked('POST', '/v1/containers', owner, { name: 'Travel' }, 409);
    await checked('POST', '/v1/containers', owner, { name: '' }, 422);
    await checked('POST', '/v1/containers', key, { name: 'Nope' }, 403);
    await checked('PATCH', `/v1/containers/${made}`, owner, { description: 'Journeys' }, 200);
    await checked('PATCH', `/v1/containers/${made}`, owner, undefined, 200); // no body: nothing to change
    await checked('PATCH', `/v1/containers/${made}`, owner, { name: 'Food' }, 409);
    await checked('PATCH', '/v1/containers/ctr_nope', owner, { name: 'X' }, 404);
    await checked('DELETE', `/v1/containers/${made}`, owner, undefined, 200);
    await checked('DELETE', `/v1/containers/${made}?confirm=true`, owner, undefined, 200);
    await checked('DELETE', `/v1/containers/${made}?confirm=true`, owner, undefined, 404);

    const minted = (
      await checked(
        'POST',
        '/v1/api-keys',
        owner,
        { name: 'Script', level: 'suggest', containers: [food], profile: true, expires_in_days: 30 },
        201,
      )
    ).body;
    await checked(
      'POST',
      '/v1/api-keys',
      owner,
      { name: 'Both', level: 'read', containers: [food], all_views: true },
      400,
    );
    await checked('POST', '/v1/api-keys', owner, { name: 'Bad', level: 'admin' }, 422);
    await checked('POST', '/v1/api-keys', owner, { name: 'Lineage', level: 'read', replaces: '' }, 400); // an empty id names no key
    await checked('GET', '/v1/api-keys', owner, undefined, 200);
    await checked('GET', '/v1/api-keys', key, undefined, 403);
    await checked('PATCH', `/v1/api-keys/${minted.id}`, owner, { level: 'read', all_views: true }, 200);
    await checked('PATCH', '/v1/api-keys/nope', owner, { level: 'read' }, 404);
    await checked('PATCH', `/v1/exposures/${minted.id}/views`, owner, { containers: [food] }, 200);
    await checked('PATCH', `/v1/exposures/${minted.id}/views`, owner, { containers: ['ctr_nope'] }, 400);
    await call(server, 'GET', '/v1/containers', key);
    await call(server, 'POST', '/v1/documents', key, { content: 'refused' });
    await checked('GET', `/v1/api-keys/${keyId}/usage`, owner, undefined, 200);
    await checked('GET', '/v1/api-keys/nope/usage', owner, undefined, 404);
    await checked('GET', `/v1/api-keys/${keyId}/access-log?limit=5`, owner, undefined, 200);
    await checked('GET', `/v1/api-keys/${keyId}/access-log?cursor=x`, owner, undefined, 400);
    await checked('GET', '/v1/api-keys/nope/access-log', owner, undefined, 404);
    await checked('GET', `/v1/api-keys/${keyId}/access-log`, key, undefined, 403);
    await checked('GET', '/v1/connected-apps/app_nope/access-log', owner, undefined, 404);
    await checked('DELETE', `/v1/exposures/${minted.id}`, owner, undefined, 200);
    await checked('DELETE', '/v1/exposures/nope', owner, undefined, 404);
    await checked('PATCH', `/v1/api-keys/${minted.id}`, owner, { name: 'Too late' }, 409);

    const rule = (await checked('POST', '/v1/rules', owner, { text: 'Answer in French.', credential_id: keyId }, 201))
      .body.id;
    await checked('GET', '/v1/rules', key, undefined, 200);
    await checked('POST', '/v1/rules', owner, { text: 'x', credential_id: '' }, 400); // was a 500 (foreign key), found by schemathesis
    await checked('DELETE', `/v1/rules/${rule}`, owner, undefined, 200);
    await checked('DELETE', `/v1/rules/${rule}`, owner, undefined, 404);

    const writer = await keyFor(server, owner, { level: 'suggest', containers: [food] });
    const fact = await addMemory(server, writer, { content: 'Likes figs.', container: food });
    await checked('POST', `/v1/memories/${fact}/confirm`, owner, undefined, 200);
    await checked('POST', `/v1/memories/${fact}/confirm`, key, undefined, 403);
    await checked('POST', '/v1/memories/mem_nope/confirm', owner, undefined, 404);

    await checked('GET', '/v1/connected-apps', owner, undefined, 200);
    await checked('GET', '/v1/connected-apps', key, undefined, 403);
    await checked('DELETE', '/v1/connected-apps/app_nope', owner, undefined, 404);

    const session = (await checked('POST', '/v1/session', null, { email, password }, 201)).body.token;
    await checked('POST', '/v1/session', null, { email, password: 'wrong password' }, 403);
    await checked('POST', '/v1/session', null, { email }, 422);
    await checked('DELETE', '/v1/session', key, undefined, 403);
    await checked('DELETE', '/v1/session', session, undefined, 200);
    await checked('DELETE', '/v1/session', session, undefined, 403);
  });

  it('the agent shares and workflows, and ask (no model on this server)', async () => {
    const {
      owner,
      containers: { Food: food },
    } = account;
    const minted = (
      await checked('POST', '/v1/shares', owner, { kind: 'agent_share', name: 'Food agent', containers: [food] }, 201)
    ).body;
    await checked('POST', '/v1/shares', owner, { kind: 'workflow', name: 'w', containers: [food] }, 400);
    await checked('POST', '/v1/shares', owner, { kind: 'nope' }, 422);
    await checked('GET', '/v1/shares', owner, undefined, 200);
    await checked('GET', '/v1/shares', null, undefined, 401);
    await checked('POST', '/v1/ask', minted.token, { message: 'breakfast' }, 422);
    await checked('POST', '/v1/ask', minted.token, { message: '' }, 400);
    const reader = await keyFor(server, owner, { level: 'read', containers: [food] });
    await checked('POST', '/v1/ask', reader, { message: 'breakfast' }, 403);
    await checked('DELETE', `/v1/shares/${minted.id}`, owner, undefined, 200);
    await checked('DELETE', '/v1/shares/nosuchshare0', owner, undefined, 404);
  });

  it('429 from the per-credential limiter', async () => {
    const limited = await startTestServer({ env: { ENGRAM_RATE_LIMIT_PER_MIN: '1' } });
    try {
      const { owner, containers } = await makeAccount(limited, ['Only']);
      const key = await keyFor(limited, owner, { level: 'read', containers: [containers.Only] });
      expect((await call(limited, 'GET', '/v1/rules', key)).status).toBe(200);
      const refused = await call(limited, 'GET', '/v1/rules', key);
      expect(refused.status).toBe(429);
      const problems = conformance(doc, compile, {
        method: 'GET',
        path: '/v1/rules',
        status: 429,
        contentType: refused.headers.get('content-type'),
        body: refused.body,
      });
      expect(problems).toEqual([]);
      expect(refused.body.details.limit_per_min).toBe(1);
      seen.get('memory_rules')?.add(429);
    } finally {
      await limited.close();
    }
  });

  it('reports an answer that does not conform (the check has teeth)', () => {
    const json = 'application/json';
    const at = (status: number, body: unknown, contentType = json) =>
      conformance(doc, compile, { method: 'GET', path: '/v1/documents/doc_1', status, contentType, body });
    expect(at(200, { id: 'doc_1' })).not.toEqual([]);
    expect(at(404, { code: 'not_found', message: 'No.', details: {}, retryable: false })).not.toEqual([]);
    expect(at(418, {})).not.toEqual([]);
    expect(
      at(404, { code: 'not_found', message: 'No.', details: {}, retryable: false, trace_id: 'tr_1' }, 'text/html'),
    ).not.toEqual([]);
    expect(at(404, { code: 'not_found', message: 'No.', details: {}, retryable: false, trace_id: 'tr_1' })).toEqual([]);
  });

  /** Operations whose success needs more than this file sets up, and where that is tested. */
  const NO_SUCCESS_HERE: Record<string, string> = {
    disconnect_app: 'a success needs an app connected through the OAuth flow (the OAuth end-to-end tests)',
    app_access_log: 'a success needs an app connected through the OAuth flow (test/e2e/rest/access-log.test.ts)',
    ask_agent: 'a success needs a language model (test/agent/ask.test.ts runs one)',
  };

  it('covered every operation of the document with a success and a refusal', () => {
    for (const { operation } of operationsOf(doc)) {
      const statuses = [...(seen.get(operation.operationId) ?? [])];
      const success = statuses.some((s) => s < 300) || operation.operationId in NO_SUCCESS_HERE;
      expect({ id: operation.operationId, success }).toEqual({ id: operation.operationId, success: true });
      expect({ id: operation.operationId, refusal: statuses.some((s) => s >= 400) }).toEqual({
        id: operation.operationId,
        refusal: true,
      });
    }
  });
});

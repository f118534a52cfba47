// Every method of the client, and every error class a real server can produce, against real
// Engram servers. scripts/e2e.sh (which test.sh runs) starts them from the repository's CLI and
// sets the variables below; without the first two this file is skipped.
//
//   ENGRAM_E2E_BASE_URL, ENGRAM_E2E_API_KEY  the server, and a Full-access key with the profile tick
//                                            reaching two or more containers (required)
//   ENGRAM_E2E_CONTAINERS       the ids that key reaches, comma-separated (else read from the server)
//   ENGRAM_E2E_READ_KEY         a Read key reaching only the first of them
//   ENGRAM_E2E_OWNER_TOKEN      the owner's session token (egs_…): a real 409 and the rules
//   ENGRAM_E2E_LIMITED_BASE_URL, ENGRAM_E2E_LIMITED_API_KEY, ENGRAM_E2E_RATE_LIMIT
//                               a second server whose per-credential limit is ENGRAM_E2E_RATE_LIMIT a
//                               minute, and a key for it: a real 429
// A test needing an optional variable is skipped without it.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { before, describe, it } from 'node:test';

import {
  APIConnectionError,
  AuthenticationError,
  BadRequestError,
  Client,
  ConflictError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  errorFromResponse,
  isConfirmationRequest,
} from '../dist/index.js';

const env = process.env;
const baseURL = env.ENGRAM_E2E_BASE_URL;
const apiKey = env.ENGRAM_E2E_API_KEY;
const skip = baseURL && apiKey ? false : 'set ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY to run';
const needs = (/** @type {string[]} */ ...names) => {
  const missing = names.filter((name) => !env[name]);
  return missing.length ? `set ${missing.join(' and ')} to run` : false;
};

/**
 * A client of this package with the runtime's real fetch and real waits.
 * @param {Partial<import('../dist/index.js').ClientOptions>} [options]
 */
const connect = (options = {}) => new Client({ baseURL, apiKey, timeout: 30_000, ...options });

const sleep = (/** @type {number} */ ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Asserts that `promise` rejects with `Class`, carrying the envelope the server sent.
 * @param {Promise<unknown>} promise
 * @param {Function} Class
 * @param {{status: number, code: string, retryable?: boolean}} expected
 * @returns {Promise<import('../dist/index.js').APIError>}
 */
async function refused(promise, Class, { status, code, retryable = false }) {
  /** @type {any} */
  let caught;
  await assert.rejects(promise, (error) => {
    caught = error;
    return true;
  });
  assert.ok(caught instanceof Class, `expected ${Class.name}, got ${caught?.constructor?.name}: ${caught?.message}`);
  assertEnvelope(caught, { status, code, retryable });
  return caught;
}

/** The fields every error built from a server's answer carries. */
function assertEnvelope(
  /** @type {any} */ error,
  /** @type {{status: number, code: string, retryable: boolean}} */ expected,
) {
  assert.deepEqual({ status: error.status, code: error.code, retryable: error.retryable }, expected);
  assert.ok(error.message.length > 0);
  assert.equal(typeof error.details, 'object');
  assert.match(error.trace_id, /^tr_\w+$/);
  assert.equal(error.headers.get('x-trace-id'), error.trace_id);
}

/**
 * Polls get-document until `learned` is true: learning runs in the server's background.
 * @param {Client} client
 * @param {string} id
 */
async function untilLearned(client, id, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const doc = await client.documents.get(id);
    assert.notEqual(doc.status, 'failed', `learning failed: ${doc.error}`);
    assert.equal(doc.learned, doc.status === 'learned');
    if (doc.learned) return doc;
    if (Date.now() > deadline) assert.fail(`document ${id} was not learned within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** A raw call to the server, for the owner's routes the client does not cover. */
function raw(
  /** @type {string} */ method,
  /** @type {string} */ path,
  /** @type {string | null} */ token,
  /** @type {unknown} */ body,
) {
  /** @type {Record<string, string>} */
  const headers = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  return fetch(`${baseURL}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

/** A loopback port with nothing listening on it (bound, then released). */
async function closedPort() {
  const server = net.createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  await new Promise((resolve) => server.close(() => resolve(undefined)));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('against a running server', { skip }, () => {
  /** @type {import('../dist/index.js').Container[]} */
  let containers = [];
  /** @type {[string, string]} */
  let [first, second] = ['', ''];

  before(async () => {
    if (skip) return;
    const listed = (await connect().containers.list()).containers;
    const ids = env.ENGRAM_E2E_CONTAINERS ? env.ENGRAM_E2E_CONTAINERS.split(',') : listed.map((c) => c.id);
    assert.ok(ids.length >= 2, 'the key must reach two or more containers');
    containers = ids.map((id) => {
      const found = listed.find((c) => c.id === id);
      assert.ok(found, `container ${id} is not listed for the key`);
      return found;
    });
    [first, second] = [containers[0].id, containers[1].id];
  });

  describe('the methods', () => {
    it('containers.list lists the containers in reach with their fields', async () => {
      const { containers: listed } = await connect().containers.list();
      for (const c of containers) assert.ok(listed.some((l) => l.id === c.id));
      for (const c of listed) {
        assert.deepEqual(Object.keys(c).sort(), ['created_at', 'description', 'id', 'learns_into_profile', 'name']);
        assert.match(c.id, /^ctr_/);
      }
    });

    it('add, documents.get until learned, search, documents.list and documents.delete with confirmation', {
      timeout: 60_000,
    }, async () => {
      const client = connect();
      const custom_id = `e2e-${randomUUID()}`;
      const word = `zephyrine${randomUUID().slice(0, 8)}`;
      const content = `She eats oatmeal with blueberries and ${word} honey for breakfast.`;

      const added = await client.add({
        container: second,
        content,
        custom_id,
        title: 'Breakfast',
        metadata: { source: 'e2e' },
      });
      assert.equal(added.status, 'queued');
      assert.equal(added.container, second);
      assert.equal(added.custom_id, custom_id);
      assert.match(added.id, /^doc_/);

      const again = await client.add({ container: second, content: 'something else', custom_id });
      assert.deepEqual(again, { ...added, status: 'exists' });

      const fresh = await client.documents.get(added.id);
      assert.equal(fresh.content, content);
      assert.deepEqual(fresh.metadata, { source: 'e2e' });
      assert.equal(fresh.learned, fresh.status === 'learned');

      const learned = await untilLearned(client, added.id);
      assert.equal(learned.learned, true);
      assert.equal(learned.status, 'learned');
      assert.equal(learned.error, null);

      const found = await client.search({ q: `${word} breakfast`, container: second, limit: 5 });
      assert.ok(found.results.length >= 1 && found.results.length <= 5);
      const hit = found.results[0];
      assert.match(hit.content, new RegExp(word));
      assert.equal(hit.document_id, added.id);
      assert.equal(hit.custom_id, custom_id);
      assert.equal(hit.container, second);
      assert.equal(hit.container_name, containers[1].name);
      assert.deepEqual(found.containers, [{ id: second, name: containers[1].name }]);

      const everywhere = await client.search({ q: word, container: '*' });
      assert.deepEqual(everywhere.containers.map((c) => c.id).sort(), [first, second].sort());
      for (const c of everywhere.containers) assert.equal(c.error, undefined, `search failed in ${c.id}`);
      assert.equal(everywhere.results[0]?.document_id, added.id);

      const listed = await client.documents.list({ container: second });
      const row = listed.documents.find((d) => d.id === added.id);
      assert.ok(row, 'the document is listed in its container');
      assert.equal(row.learned, true);
      assert.equal('content' in row, false, 'list leaves content out');
      assert.equal(
        (await client.documents.list({ container: first })).documents.some((d) => d.id === added.id),
        false,
      );

      const asked = await client.documents.delete(added.id);
      assert.ok(isConfirmationRequest(asked));
      assert.equal(asked.verb, 'delete_document');
      assert.ok(asked.how.length > 0);
      assert.equal((await client.documents.get(added.id)).id, added.id, 'nothing is deleted without confirm');

      assert.deepEqual(await client.documents.delete(added.id, { confirm: true }), {
        status: 'deleted',
        id: added.id,
        forgotten: { documents: 1, passages: 1, facts: 0 },
        kept: { facts: 0 },
      });
      await refused(client.documents.get(added.id), NotFoundError, { status: 404, code: 'not_found' });
      await refused(client.documents.delete(added.id, { confirm: true }), NotFoundError, {
        status: 404,
        code: 'not_found',
      });
    });

    it('documents.list pages newest first with next_cursor', async () => {
      const client = connect();
      const ids = [];
      for (const n of [1, 2, 3])
        ids.push((await client.add({ container: first, content: `Paging note ${n} ${randomUUID()}` })).id);
      const seen = [];
      /** @type {string | null} */
      let cursor = null;
      do {
        const page = await client.documents.list({ container: first, limit: 1, cursor });
        assert.ok(page.documents.length <= 1);
        seen.push(...page.documents.map((d) => d.id));
        cursor = page.next_cursor;
      } while (cursor);
      const ours = seen.filter((id) => ids.includes(id));
      assert.deepEqual(ours, [...ids].reverse());
    });

    it('memories.add saves a fact to a container or, with static, to the profile; profile reads both', async () => {
      const client = connect();
      const topic = `quokka${randomUUID().slice(0, 8)}`;
      const fact = await client.memories.add({
        content: `The ${topic} report is due on Friday.`,
        container: first,
        title: 'Deadline',
      });
      assert.match(fact.id, /^mem_/);
      assert.deepEqual(
        { container: fact.container, static: fact.static, title: fact.title },
        { container: first, static: false, title: 'Deadline' },
      );

      const standing = await client.memories.add({ content: `Prefers ${topic} tea over coffee.`, static: true });
      assert.deepEqual({ container: standing.container, static: standing.static }, { container: null, static: true });

      const profile = await client.profile();
      assert.ok(profile.static.some((f) => f.id === standing.id));
      assert.ok(profile.dynamic.some((f) => f.id === fact.id));
      assert.equal(profile.results, undefined, 'no results without q');
      const withTopic = await client.profile({ q: topic });
      assert.ok(Array.isArray(withTopic.results));
    });

    it('memories.forget asks for confirmation, then forgets; forgetting again is NotFoundError', async () => {
      const client = connect();
      const fact = await client.memories.add({
        content: `Parks the bike at gate ${randomUUID().slice(0, 4)}.`,
        container: first,
      });
      const asked = await client.memories.forget(fact.id, { container: first });
      assert.ok(isConfirmationRequest(asked));
      assert.equal(asked.verb, 'forget_memory');
      assert.ok(
        (await client.profile()).dynamic.some((f) => f.id === fact.id),
        'nothing is forgotten without confirm',
      );

      assert.deepEqual(await client.memories.forget(fact.id, { confirm: true }), { status: 'forgotten', id: fact.id });
      assert.equal(
        (await client.profile()).dynamic.some((f) => f.id === fact.id),
        false,
      );
      await refused(client.memories.forget(fact.id, { confirm: true }), NotFoundError, {
        status: 404,
        code: 'not_found',
      });
    });

    it('a write whose answer is lost is retried under its idempotency key and saved once', {
      timeout: 30_000,
    }, async () => {
      /** @type {Array<{key: string | null, answer: unknown}>} */
      const attempts = [];
      // The server answers every attempt; the first answer is dropped, as a timeout would lose it.
      /** @type {import('../dist/index.js').FetchLike} */
      const losingFirstAnswer = async (url, init) => {
        const response = await fetch(url, init);
        const answer = await response.json();
        attempts.push({ key: new Headers(init.headers).get('idempotency-key'), answer });
        if (attempts.length > 1) return Response.json(answer, { status: response.status, headers: response.headers });
        return new Promise((_, reject) => init.signal?.addEventListener('abort', () => reject(init.signal?.reason)));
      };
      const title = `Lost answer ${randomUUID()}`;
      const added = await connect({ fetch: losingFirstAnswer, timeout: 1_000 }).add({
        container: first,
        content: 'Saved once despite the retry.',
        title,
      });
      assert.equal(attempts.length, 2);
      assert.ok(attempts[0]?.key);
      assert.equal(attempts[1]?.key, attempts[0]?.key);
      assert.deepEqual(added, attempts[0]?.answer);
      const listed = (await connect().documents.list({ container: first, limit: 200 })).documents.filter(
        (d) => d.title === title,
      );
      assert.deepEqual(
        listed.map((d) => d.id),
        [added.id],
      );

      attempts.length = 0;
      const content = `Feeds the cat at ${randomUUID().slice(0, 8)}.`;
      const fact = await connect({ fetch: losingFirstAnswer, timeout: 1_000 }).memories.add({
        content,
        container: first,
      });
      assert.equal(attempts.length, 2);
      assert.deepEqual(fact, attempts[0]?.answer);
      assert.deepEqual(
        (await connect().profile()).dynamic.filter((f) => f.content === content).map((f) => f.id),
        [fact.id],
      );
    });

    it("rules returns the standing rules: the account-wide ones and the key's own", {
      skip: needs('ENGRAM_E2E_OWNER_TOKEN', 'ENGRAM_E2E_READ_KEY'),
    }, async () => {
      const owner = /** @type {string} */ (env.ENGRAM_E2E_OWNER_TOKEN);
      const keyId = /** @type {string} */ (apiKey).split('_')[1];
      const everyone = await (await raw('POST', '/v1/rules', owner, { text: `Never mention ${randomUUID()}.` })).json();
      const ownRule = await (
        await raw('POST', '/v1/rules', owner, { text: 'Answer in French.', credential_id: keyId })
      ).json();

      const { rules } = await connect().rules();
      const mine = rules.find((r) => r.id === ownRule.id);
      assert.deepEqual(
        rules.find((r) => r.id === everyone.id),
        everyone,
      );
      assert.deepEqual(mine, ownRule);
      assert.equal(mine?.scope, 'credential');

      const readers = await connect({ apiKey: env.ENGRAM_E2E_READ_KEY }).rules();
      assert.ok(readers.rules.some((r) => r.id === everyone.id));
      assert.equal(
        readers.rules.some((r) => r.id === ownRule.id),
        false,
        "another key does not see this key's rule",
      );
    });

    it('ask is refused with PermissionDeniedError: no developer key holds ask_agent', async () => {
      const error = await refused(connect().ask({ message: 'What do I eat for breakfast?' }), PermissionDeniedError, {
        status: 403,
        code: 'unauthorized',
      });
      assert.equal(error.details.tool, 'ask_agent');
    });
  });

  describe('the error classes, each from a real refusal', () => {
    it('400 BadRequestError: an empty q, both content and url, no container with two in reach', async () => {
      const client = connect();
      await refused(client.search({ q: '   ' }), BadRequestError, { status: 400, code: 'validation' });
      await refused(client.add({ container: first, content: 'x', url: 'https://example.org/' }), BadRequestError, {
        status: 400,
        code: 'validation',
      });
      const error = await refused(client.memories.add({ content: 'Likes rain.' }), BadRequestError, {
        status: 400,
        code: 'validation',
      });
      assert.deepEqual(error.details.fields, ['container']);
    });

    // The client always sends its key, so a missing bearer cannot come from it as configured: the
    // request goes through a fetch that drops the header, as a misconfigured proxy would.
    it('401 AuthenticationError: a request that arrives without the bearer', async () => {
      const dropBearer = (/** @type {string} */ url, /** @type {RequestInit} */ init) => {
        const headers = new Headers(init.headers);
        headers.delete('authorization');
        return fetch(url, { ...init, headers });
      };
      await refused(connect({ fetch: dropBearer }).containers.list(), AuthenticationError, {
        status: 401,
        code: 'unauthorized',
      });
    });

    it('403 PermissionDeniedError: an unknown key, a verb above the level, a container outside reach', {
      skip: needs('ENGRAM_E2E_READ_KEY'),
    }, async () => {
      const unknown = `egm_nosuchkey000_${randomUUID().replaceAll('-', '')}`;
      const error = await refused(connect({ apiKey: unknown }).containers.list(), PermissionDeniedError, {
        status: 403,
        code: 'unauthorized',
      });
      assert.equal(error.message.includes(unknown), false, 'the key never appears in the message');

      const reader = connect({ apiKey: env.ENGRAM_E2E_READ_KEY });
      assert.deepEqual(
        (await reader.containers.list()).containers.map((c) => c.id),
        [first],
      );
      const above = await refused(reader.add({ content: 'A write from a Read key.' }), PermissionDeniedError, {
        status: 403,
        code: 'unauthorized',
      });
      assert.equal(above.details.tool, 'add_document');
      await refused(reader.memories.forget('mem_whatever', { confirm: true }), PermissionDeniedError, {
        status: 403,
        code: 'unauthorized',
      });
      await refused(reader.search({ q: 'anything', container: second }), PermissionDeniedError, {
        status: 403,
        code: 'unauthorized',
      });
      await refused(reader.profile(), PermissionDeniedError, { status: 403, code: 'unauthorized' });
    });

    it('404 NotFoundError: unknown document and memory ids', async () => {
      const client = connect();
      await refused(client.documents.get(`doc_${randomUUID()}`), NotFoundError, { status: 404, code: 'not_found' });
      await refused(client.documents.delete(`doc_${randomUUID()}`), NotFoundError, { status: 404, code: 'not_found' });
      await refused(client.memories.forget(`mem_${randomUUID()}`), NotFoundError, { status: 404, code: 'not_found' });
    });

    // No route a client method calls answers 409 today: a conflict arises only on the owner's
    // routes (a duplicate container name, changing a revoked key). So a real 409 answer from one of
    // those goes through errorFromResponse, the one place the client turns a status into a class.
    it('409 ConflictError: a real conflict answer, through errorFromResponse', {
      skip: needs('ENGRAM_E2E_OWNER_TOKEN'),
    }, async () => {
      const res = await raw('POST', '/v1/containers', env.ENGRAM_E2E_OWNER_TOKEN ?? null, { name: containers[0].name });
      assert.equal(res.status, 409);
      const error = errorFromResponse(res.status, await res.text(), res.headers);
      assert.ok(error instanceof ConflictError);
      assertEnvelope(error, { status: 409, code: 'conflict', retryable: true });
    });

    it('422 UnprocessableEntityError: a malformed body (limit 0, a number for q)', async () => {
      const client = connect();
      const error = await refused(client.search({ q: 'tea', container: first, limit: 0 }), UnprocessableEntityError, {
        status: 422,
        code: 'validation',
      });
      assert.deepEqual(error.details.fields, ['limit']);
      const typed = await refused(
        client.search(/** @type {any} */ ({ q: 42, container: first })),
        UnprocessableEntityError,
        { status: 422, code: 'validation' },
      );
      assert.deepEqual(typed.details.fields, ['q']);
    });

    it('429 RateLimitError: past the per-credential limit, after the retries; search stays exempt', {
      skip: needs('ENGRAM_E2E_LIMITED_BASE_URL', 'ENGRAM_E2E_LIMITED_API_KEY', 'ENGRAM_E2E_RATE_LIMIT'),
      timeout: 30_000,
    }, async () => {
      const limit = Number(env.ENGRAM_E2E_RATE_LIMIT);
      const limited = { baseURL: env.ENGRAM_E2E_LIMITED_BASE_URL, apiKey: env.ENGRAM_E2E_LIMITED_API_KEY };
      const once = connect({ ...limited, maxRetries: 0 });
      let error;
      for (let n = 0; n <= limit && !error; n++) {
        error = await once.containers.list().then(
          () => undefined,
          (e) => e,
        );
      }
      assert.ok(error, `no 429 within ${limit + 1} calls`);
      assert.ok(error instanceof RateLimitError, `expected RateLimitError, got ${error}`);
      assertEnvelope(error, { status: 429, code: 'rate_limited', retryable: true });
      assert.equal(error.details.limit_per_min, limit);

      // With retries, the client sends again (0.5 s, then 1 s: no Retry-After) and then raises.
      let attempts = 0;
      const counting = (/** @type {string} */ url, /** @type {RequestInit} */ init) => {
        attempts++;
        return fetch(url, init);
      };
      await refused(connect({ ...limited, maxRetries: 2, fetch: counting }).rules(), RateLimitError, {
        status: 429,
        code: 'rate_limited',
        retryable: true,
      });
      assert.equal(attempts, 3);

      const found = await connect({ ...limited, maxRetries: 0 }).search({ q: 'anything' });
      assert.ok(Array.isArray(found.results), 'search is never answered 429');
    });

    // A 5xx cannot be provoked from a correct server; test/retries.js covers InternalServerError
    // with a scripted transport, and the schemathesis run (scripts/schemathesis.sh) checks that no
    // request makes this server answer one.
    it('APIConnectionError: nothing listening at the address', async () => {
      const client = new Client({ apiKey, baseURL: `http://127.0.0.1:${await closedPort()}`, maxRetries: 0 });
      await assert.rejects(client.containers.list(), (error) => {
        assert.ok(error instanceof APIConnectionError);
        assert.equal(/** @type {APIConnectionError} */ (error).status, null);
        return true;
      });
    });
  });
});

// Error answers become one class per status, carrying the envelope's fields; and the key never
// shows in an error message or in the client's printed form.

import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';

import {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EngramError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  errorFromResponse,
} from '../dist/index.js';
import { HANG, KEY, KEY_HINT, envelope, makeClient, reply } from './support/helpers.js';

const CLASSES = [
  [400, BadRequestError, 'validation'],
  [401, AuthenticationError, 'unauthenticated'],
  [403, PermissionDeniedError, 'unauthorized'],
  [404, NotFoundError, 'not_found'],
  [409, ConflictError, 'conflict'],
  [422, UnprocessableEntityError, 'capability_unavailable'],
  [429, RateLimitError, 'rate_limited'],
  [500, InternalServerError, 'internal'],
  [502, InternalServerError, 'internal'],
  [503, InternalServerError, 'internal'],
];

describe('each status becomes its class, with the envelope fields', () => {
  for (const [status, Class, code] of CLASSES) {
    it(`${status} → ${Class.name}`, async () => {
      const body = envelope(code, `Refused with ${status}.`, {
        details: { field: 'q' },
        retryable: status >= 429,
        trace_id: `trc_${status}`,
      });
      // maxRetries 0, so the retried statuses surface on their first answer.
      const { client } = makeClient({ script: [reply(status, body)], maxRetries: 0 });
      await assert.rejects(client.search({ q: 'tea' }), (error) => {
        assert.ok(error instanceof Class, `expected ${Class.name}, got ${error?.constructor?.name}`);
        assert.ok(error instanceof APIError);
        assert.ok(error instanceof EngramError);
        assert.ok(error instanceof Error);
        assert.ok(!(error instanceof APIConnectionError));
        assert.equal(error.name, Class.name);
        assert.equal(error.status, status);
        assert.equal(error.code, code);
        assert.equal(error.message, `Refused with ${status}.`);
        assert.deepEqual(error.details, { field: 'q' });
        assert.equal(error.retryable, status >= 429);
        assert.equal(error.trace_id, `trc_${status}`);
        assert.ok(error.headers instanceof Headers);
        return true;
      });
    });
  }

  it('a status without its own class is a plain APIError', async () => {
    const { client } = makeClient({ script: [reply(418, envelope('teapot', 'I am a teapot.'))] });
    await assert.rejects(client.rules(), (error) => {
      assert.equal(error.constructor, APIError);
      assert.equal(error.status, 418);
      assert.equal(error.code, 'teapot');
      return true;
    });
  });
});

describe('errorFromResponse', () => {
  it('takes the envelope as parsed JSON or as text', () => {
    const body = envelope('not_found', 'No such document.', { trace_id: 'trc_1' });
    for (const form of [body, JSON.stringify(body)]) {
      const error = errorFromResponse(404, form, {});
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.message, 'No such document.');
      assert.equal(error.trace_id, 'trc_1');
    }
  });

  it('falls back to the X-Trace-Id header for trace_id', () => {
    const error = errorFromResponse(
      403,
      { code: 'unauthorized', message: 'No.' },
      new Headers({ 'X-Trace-Id': 'trc_hdr' }),
    );
    assert.equal(error.trace_id, 'trc_hdr');
    const fromRecord = errorFromResponse(500, '', { 'x-trace-id': 'trc_rec' });
    assert.equal(fromRecord.trace_id, 'trc_rec');
  });

  it('prefers the envelope trace_id over the header', () => {
    const error = errorFromResponse(400, envelope('validation', 'No.', { trace_id: 'trc_body' }), {
      'X-Trace-Id': 'trc_hdr',
    });
    assert.equal(error.trace_id, 'trc_body');
  });

  it('copes with an answer that is not an envelope', () => {
    const error = errorFromResponse(502, '<html><body>Bad gateway</body></html>', null);
    assert.ok(error instanceof InternalServerError);
    assert.equal(error.code, null);
    assert.equal(error.trace_id, null);
    assert.deepEqual(error.details, {});
    assert.equal(error.retryable, true, 'retryable follows the status when the body says nothing');
    assert.match(error.message, /HTTP 502 without an error envelope: <html><body>Bad gateway/);

    const empty = errorFromResponse(401, '', undefined);
    assert.ok(empty instanceof AuthenticationError);
    assert.equal(empty.retryable, false);
    assert.match(empty.message, /HTTP 401 without an error envelope\.$/);
  });

  it('maps every 5xx to InternalServerError and other statuses to APIError', () => {
    assert.ok(errorFromResponse(599, {}, null) instanceof InternalServerError);
    assert.equal(errorFromResponse(600, {}, null).constructor, APIError);
    assert.equal(errorFromResponse(405, {}, null).constructor, APIError);
  });
});

describe('answers that are not JSON', () => {
  it('a 2xx with a body that is not JSON throws APIError', async () => {
    const { client } = makeClient({ script: [reply(200, '<html>proxy login</html>', { 'X-Trace-Id': 'trc_p' })] });
    await assert.rejects(client.containers.list(), (error) => {
      assert.equal(error.constructor, APIError);
      assert.equal(error.status, 200);
      assert.equal(error.trace_id, 'trc_p');
      assert.match(error.message, /not JSON/);
      return true;
    });
  });
});

describe('the key never shows', () => {
  it('an error body that echoes the key is shown with the hint instead', async () => {
    const body = envelope('unauthorized', `Key ${KEY} is revoked.`, { details: { key: KEY } });
    const { client } = makeClient({ script: [reply(403, body)] });
    await assert.rejects(client.rules(), (error) => {
      assert.ok(error instanceof PermissionDeniedError);
      assert.equal(error.message, `Key ${KEY_HINT} is revoked.`);
      assert.ok(!JSON.stringify(error.details).includes(KEY));
      assert.ok(!inspect(error, { depth: 5 }).includes(KEY));
      return true;
    });
  });

  it('a connection error whose cause names the key is redacted', async () => {
    const leaky = new TypeError('fetch failed', { cause: new Error(`bad header: Bearer ${KEY}`) });
    const { client } = makeClient({ script: [leaky], maxRetries: 0 });
    await assert.rejects(client.rules(), (error) => {
      assert.ok(error instanceof APIConnectionError);
      assert.ok(!error.message.includes(KEY));
      assert.ok(error.message.includes(KEY_HINT));
      assert.ok(!inspect(error, { depth: 5 }).includes(KEY), 'printing the error prints its cause too');
      assert.equal(error.cause.name, 'TypeError');
      return true;
    });
  });

  it('a timeout message does not carry the key', async () => {
    const { client } = makeClient({ script: [HANG], timeout: 10, maxRetries: 0 });
    await assert.rejects(client.rules(), (error) => {
      assert.ok(error instanceof APITimeoutError);
      assert.ok(!error.message.includes(KEY));
      return true;
    });
  });

  it('the client prints and serialises without the key, showing its hint', () => {
    const { client } = makeClient({ script: [] });
    assert.equal(client.keyHint, KEY_HINT);
    assert.ok(!inspect(client, { depth: 10, showHidden: true }).includes(KEY));
    assert.ok(!JSON.stringify(client).includes(KEY));
    assert.ok(!Object.values(client).some((value) => value === KEY));
  });
});

// The one request loop: what is retried, how many times, and how long it waits in between.
// Waits are recorded by an injected sleep, so nothing here actually sleeps.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  APIConnectionError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
} from '../dist/index.js';
import { HANG, envelope, makeClient, reply } from './support/helpers.js';

const OK = reply(200, { containers: [] });
const limited = (headers = {}) =>
  reply(429, envelope('rate_limited', 'Slow down.', { details: { limit_per_min: 600 }, retryable: true }), headers);
const failed = (status = 500) => reply(status, envelope('internal', 'Something broke.', { retryable: true }));

describe('retries', () => {
  it('retries a 429 and resolves with the 200 after it: 2 calls, one 0.5 s wait', async () => {
    const { client, calls, waits } = makeClient({ script: [limited(), OK] });
    assert.deepEqual(await client.containers.list(), { containers: [] });
    assert.equal(calls.length, 2);
    assert.deepEqual(waits, [500]);
  });

  it('sends the same request again, body and headers included', async () => {
    const { client, calls } = makeClient({ script: [failed(503), reply(202, { id: 'doc_1', status: 'queued' })] });
    await client.add({ container: 'ctr_1', content: 'x', custom_id: 'c1' });
    assert.equal(calls.length, 2);
    assert.deepEqual(calls[1].body, calls[0].body);
    assert.deepEqual(calls[1].headers, calls[0].headers);
    assert.equal(calls[1].url.href, calls[0].url.href);
  });

  for (const status of [408, 409, 429, 500, 502, 503, 504]) {
    it(`retries HTTP ${status}`, async () => {
      const { client, calls } = makeClient({ script: [reply(status, envelope('x', 'y')), OK] });
      await client.containers.list();
      assert.equal(calls.length, 2);
    });
  }

  const notRetried = [
    [400, BadRequestError],
    [401, AuthenticationError],
    [403, PermissionDeniedError],
    [404, NotFoundError],
    [422, UnprocessableEntityError],
  ];
  for (const [status, Class] of notRetried) {
    it(`does not retry HTTP ${status}`, async () => {
      const { client, calls, waits } = makeClient({ script: [reply(status, envelope('validation', 'No.')), OK] });
      await assert.rejects(client.search({ q: 'tea' }), Class);
      assert.equal(calls.length, 1);
      assert.deepEqual(waits, []);
    });
  }

  it('gives up on a 5xx after maxRetries + 1 calls and throws InternalServerError', async () => {
    const { client, calls, waits } = makeClient({ script: [failed(), failed(502), failed(503)] });
    await assert.rejects(client.rules(), (error) => {
      assert.ok(error instanceof InternalServerError);
      assert.equal(error.status, 503);
      assert.equal(error.code, 'internal');
      return true;
    });
    assert.equal(calls.length, 3);
    assert.deepEqual(waits, [500, 1000]);
  });

  it('gives up on a 409 with ConflictError and on a 429 with RateLimitError', async () => {
    const conflict = makeClient({
      script: [
        reply(409, envelope('conflict', 'Busy.')),
        reply(409, envelope('conflict', 'Busy.')),
        reply(409, envelope('conflict', 'Busy.')),
      ],
    });
    await assert.rejects(conflict.client.memories.add({ content: 'x' }), ConflictError);
    assert.equal(conflict.calls.length, 3);

    const rate = makeClient({ script: [limited(), limited(), limited()], maxRetries: 2 });
    await assert.rejects(rate.client.rules(), (error) => {
      assert.ok(error instanceof RateLimitError);
      assert.deepEqual(error.details, { limit_per_min: 600 });
      return true;
    });
    assert.equal(rate.calls.length, 3);
  });

  it('honours maxRetries', async () => {
    const none = makeClient({ script: [failed()], maxRetries: 0 });
    await assert.rejects(none.client.rules(), InternalServerError);
    assert.equal(none.calls.length, 1);
    assert.deepEqual(none.waits, []);

    const four = makeClient({ script: [failed(), failed(), failed(), failed(), OK], maxRetries: 4 });
    await four.client.containers.list();
    assert.equal(four.calls.length, 5);
  });
});

describe('waits', () => {
  it('doubles from 0.5 s and stops growing at 8 s', async () => {
    const script = Array.from({ length: 8 }, () => failed());
    const { client, waits } = makeClient({ script, maxRetries: 7 });
    await assert.rejects(client.rules(), InternalServerError);
    assert.deepEqual(waits, [500, 1000, 2000, 4000, 8000, 8000, 8000]);
  });

  it('takes off at most 25 % jitter', async () => {
    const half = makeClient({ script: [failed(), failed(), OK], random: 0.5 });
    await half.client.containers.list();
    assert.deepEqual(half.waits, [437.5, 875]);

    const most = makeClient({ script: [failed(), OK], random: 0.999999 });
    await most.client.containers.list();
    assert.ok(most.waits[0] > 375 && most.waits[0] < 500, `wait ${most.waits[0]}`);
  });

  it('uses a numeric Retry-After in seconds instead of the backoff', async () => {
    const { client, waits } = makeClient({ script: [limited({ 'Retry-After': '3' }), failed(), OK], random: 0.5 });
    await client.containers.list();
    // The first wait is the header's, with no jitter; the second falls back to backoff for retry 2.
    assert.deepEqual(waits, [3000, 875]);
  });

  it('accepts a zero and a fractional Retry-After', async () => {
    const { client, waits } = makeClient({
      script: [limited({ 'Retry-After': '0' }), limited({ 'Retry-After': '1.5' }), OK],
    });
    await client.containers.list();
    assert.deepEqual(waits, [0, 1500]);
  });

  it('caps Retry-After at 60 s', async () => {
    const { client, waits } = makeClient({ script: [limited({ 'Retry-After': '3600' }), OK] });
    await client.containers.list();
    assert.deepEqual(waits, [60_000]);
  });

  it('ignores a Retry-After that is not a number of seconds', async () => {
    const script = [limited({ 'Retry-After': 'Wed, 21 Oct 2037 07:28:00 GMT' }), limited({ 'Retry-After': '-5' }), OK];
    const { client, waits } = makeClient({ script, maxRetries: 2 });
    await client.containers.list();
    assert.deepEqual(waits, [500, 1000]);
  });
});

describe('no answer', () => {
  it('retries a connection error, then throws APIConnectionError after maxRetries + 1 attempts', async () => {
    const refused = () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED 127.0.0.1:8787') });
    const { client, calls, waits } = makeClient({ script: [refused(), refused(), refused()] });
    await assert.rejects(client.containers.list(), (error) => {
      assert.ok(error instanceof APIConnectionError);
      assert.ok(!(error instanceof APITimeoutError));
      assert.equal(error.status, null);
      assert.equal(error.retryable, true);
      assert.match(error.message, /ECONNREFUSED/);
      assert.match(error.message, /GET http:\/\/engram\.test\/v1\/containers/);
      assert.ok(error.cause instanceof TypeError);
      return true;
    });
    assert.equal(calls.length, 3);
    assert.deepEqual(waits, [500, 1000]);
  });

  it('recovers when a retry after a connection error succeeds', async () => {
    const { client, calls } = makeClient({ script: [new TypeError('fetch failed'), OK] });
    assert.deepEqual(await client.containers.list(), { containers: [] });
    assert.equal(calls.length, 2);
  });

  it('aborts an attempt after `timeout` ms and throws APITimeoutError', async () => {
    const { client, calls } = makeClient({ script: [HANG], timeout: 20, maxRetries: 0 });
    const started = Date.now();
    await assert.rejects(client.search({ q: 'tea' }), (error) => {
      assert.ok(error instanceof APITimeoutError);
      assert.ok(error instanceof APIConnectionError);
      assert.equal(error.status, null);
      assert.match(error.message, /within 20 ms/);
      return true;
    });
    assert.equal(calls.length, 1);
    assert.ok(Date.now() - started < 2000);
  });

  it('times out even a custom fetch that ignores the abort signal', async () => {
    const deaf = () => new Promise(() => {}); // never settles, never listens
    const { client } = makeClient({ script: [deaf], timeout: 20, maxRetries: 0 });
    await assert.rejects(client.containers.list(), APITimeoutError);
  });

  it('retries a timeout, and each attempt gets its own timer', async () => {
    const { client, calls, waits } = makeClient({ script: [HANG, HANG, OK], timeout: 20 });
    assert.deepEqual(await client.containers.list(), { containers: [] });
    assert.equal(calls.length, 3);
    assert.deepEqual(waits, [500, 1000]);
  });
});

// The client over a real socket: a node:http server on 127.0.0.1 and an ephemeral port.

import assert from 'node:assert/strict';
import http from 'node:http';
import { after, describe, it } from 'node:test';

import { APIConnectionError, APITimeoutError, Client } from '../dist/index.js';
import { KEY, makeClient, startLoopback } from './support/helpers.js';

/** @type {Array<() => Promise<unknown>>} */
const cleanups = [];
after(async () => {
  for (const close of cleanups) await close();
});

describe('over a real loopback socket', () => {
  it('retries two 503 answers and resolves with the third, 200', async () => {
    let answered = 0;
    const server = await startLoopback((_req, res) => {
      answered += 1;
      if (answered <= 2) {
        res.writeHead(503, { 'Content-Type': 'application/json', 'X-Trace-Id': `trc_${answered}` });
        res.end(
          JSON.stringify({
            code: 'internal',
            message: 'Starting up.',
            details: {},
            retryable: true,
            trace_id: `trc_${answered}`,
          }),
        );
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          results: [{ content: 'Ada likes green tea.' }],
          containers: [{ id: 'ctr_1', name: 'Notes' }],
        }),
      );
    });
    cleanups.push(server.close);

    // Real fetch and real sleeps (0.5 s then 1 s less jitter); only the waits are recorded.
    const { client, waits } = makeClient({ baseURL: server.baseURL, sleep: true });
    const result = await client.search({ q: 'tea', limit: 3 });

    assert.equal(result.results[0].content, 'Ada likes green tea.');
    assert.equal(server.requests.length, 3);
    assert.equal(waits.length, 2);
    for (const request of server.requests) {
      assert.equal(request.method, 'POST');
      assert.equal(request.url, '/v1/search');
      assert.equal(request.headers.authorization, `Bearer ${KEY}`);
      assert.equal(request.headers['content-type'], 'application/json');
      assert.deepEqual(JSON.parse(request.body), { q: 'tea', limit: 3 });
    }
  });

  it('honours Retry-After from a real answer', async () => {
    let answered = 0;
    const server = await startLoopback((_req, res) => {
      answered += 1;
      if (answered === 1) {
        res.writeHead(429, { 'Retry-After': '0', 'Content-Type': 'application/json' });
        res.end('{"code":"rate_limited","message":"Slow down.","details":{},"retryable":true,"trace_id":"trc_r"}');
        return;
      }
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end('{"rules":[]}');
    });
    cleanups.push(server.close);
    const { client, waits } = makeClient({ baseURL: server.baseURL, sleep: true });
    assert.deepEqual(await client.rules(), { rules: [] });
    assert.deepEqual(waits, [0]);
  });

  it('times out a server that sends headers and then stalls', async () => {
    const server = await startLoopback((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"containers":['); // and never ends
    });
    cleanups.push(server.close);
    const client = new Client({ apiKey: KEY, baseURL: server.baseURL, timeout: 200, maxRetries: 0 });
    await assert.rejects(client.containers.list(), APITimeoutError);
  });

  it('throws APIConnectionError when nothing listens on the port', async () => {
    // Take a free port, then close it, so the connection is refused.
    const probe = http.createServer();
    await new Promise((resolve) => probe.listen(0, '127.0.0.1', () => resolve(undefined)));
    const address = probe.address();
    assert.ok(address && typeof address === 'object');
    await new Promise((resolve) => probe.close(() => resolve(undefined)));

    const { client, waits } = makeClient({ baseURL: `http://127.0.0.1:${address.port}`, maxRetries: 1 });
    await assert.rejects(client.rules(), (error) => {
      assert.ok(error instanceof APIConnectionError);
      assert.ok(!(error instanceof APITimeoutError));
      return true;
    });
    assert.equal(waits.length, 1);
  });
});

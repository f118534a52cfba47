// Idempotency keys: every write method sends one Idempotency-Key per logical call, the same on each
// retry of that call, and a caller may pass their own. Reads send none.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { EngramError } from '../dist/index.js';
import { HANG, envelope, makeClient, reply } from './support/helpers.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const failed = reply(503, envelope('internal', 'Try again.', { retryable: true }));
const key = (/** @type {{headers: Record<string, string>}} */ call) => call.headers['idempotency-key'];

/** Each write method, called once, with the answer it expects. */
const WRITES = [
  ['add', (c, o) => c.add({ container: 'ctr_1', content: 'x' }, o), reply(202, { id: 'doc_1', status: 'queued' })],
  ['memories.add', (c, o) => c.memories.add({ content: 'x', container: 'ctr_1' }, o), reply(201, { id: 'mem_1' })],
  [
    'documents.delete',
    (c, o) => c.documents.delete('doc_1', { confirm: true }, o),
    reply(200, { status: 'deleted', id: 'doc_1' }),
  ],
  [
    'memories.forget',
    (c, o) => c.memories.forget('mem_1', { confirm: true }, o),
    reply(200, { status: 'forgotten', id: 'mem_1' }),
  ],
];

describe('idempotency keys', () => {
  for (const [name, call, ok] of WRITES) {
    it(`${name}: a timeout then a success, both attempts carry the same random UUID key`, async () => {
      const { client, calls } = makeClient({ script: [HANG, ok], timeout: 20 });
      await call(client, undefined);
      assert.equal(calls.length, 2);
      assert.match(key(calls[0]), UUID);
      assert.equal(key(calls[1]), key(calls[0]));
    });
  }

  it('a 5xx and a lost connection are retried under the same key too', async () => {
    const { client, calls } = makeClient({
      script: [failed, new TypeError('fetch failed'), reply(201, { id: 'mem_1' })],
    });
    await client.memories.add({ content: 'x', container: 'ctr_1' });
    assert.equal(calls.length, 3);
    assert.match(key(calls[0]), UUID);
    assert.equal(new Set(calls.map(key)).size, 1);
  });

  it('two logical calls send two different keys', async () => {
    const saved = reply(201, { id: 'mem_1' });
    const { client, calls } = makeClient({ script: [saved, saved, reply(200, { containers: [] })] });
    await client.memories.add({ content: 'x', container: 'ctr_1' });
    await client.memories.add({ content: 'x', container: 'ctr_1' });
    assert.match(key(calls[0]), UUID);
    assert.match(key(calls[1]), UUID);
    assert.notEqual(key(calls[0]), key(calls[1]));
    // Reads send none: repeating one writes nothing.
    await client.containers.list();
    assert.equal(key(calls[2]), undefined);
  });

  it("sends the caller's own idempotencyKey on every attempt", async () => {
    const { client, calls } = makeClient({ script: [failed, reply(202, { id: 'doc_1', status: 'queued' })] });
    await client.add({ container: 'ctr_1', content: 'x' }, { idempotencyKey: 'order-42' });
    assert.deepEqual(calls.map(key), ['order-42', 'order-42']);
  });

  it('refuses a key the server would refuse, before sending anything; 255 printable characters go', async () => {
    for (const bad of ['', 'k'.repeat(256), 'café', 'line\nbreak']) {
      const { client, calls } = makeClient({ script: [] });
      await assert.rejects(client.memories.add({ content: 'x' }, { idempotencyKey: bad }), EngramError);
      assert.equal(calls.length, 0);
    }
    const { client, calls } = makeClient({ script: [reply(201, { id: 'mem_1' })] });
    await client.memories.add({ content: 'x' }, { idempotencyKey: 'k'.repeat(255) });
    assert.equal(key(calls[0]), 'k'.repeat(255));
  });
});

// Destructive calls without confirm answer 200 with a confirmation request: a value, not an error.
// The compile-time side (narrowing before reading `id`) is checked in types-check.ts.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { isConfirmationRequest } from '../dist/index.js';
import { makeClient, reply } from './support/helpers.js';

const CONFIRM_DELETE = {
  status: 'confirmation_required',
  verb: 'delete_document',
  how: 'Ask the person to confirm, then call again with confirm=true.',
};

describe('confirmation requests', () => {
  it('documents.delete without confirm resolves with the confirmation request', async () => {
    const { client, calls } = makeClient({ script: [reply(200, CONFIRM_DELETE)] });
    const result = await client.documents.delete('doc_1');
    assert.deepEqual(result, CONFIRM_DELETE);
    assert.equal(isConfirmationRequest(result), true);
    assert.equal(calls.length, 1, 'a confirmation request is an answer, not a failure to retry');
  });

  it('memories.forget without confirm resolves with the confirmation request', async () => {
    const answer = { ...CONFIRM_DELETE, verb: 'forget_memory' };
    const { client } = makeClient({ script: [reply(200, answer)] });
    const result = await client.memories.forget('mem_1', { container: 'ctr_1' });
    assert.equal(isConfirmationRequest(result), true);
    if (isConfirmationRequest(result)) assert.equal(result.verb, 'forget_memory');
  });

  it('a confirmed result is not a confirmation request', async () => {
    const { client } = makeClient({ script: [reply(200, { status: 'deleted', id: 'doc_1' })] });
    const result = await client.documents.delete('doc_1', { confirm: true });
    assert.equal(isConfirmationRequest(result), false);
    assert.equal(result.status, 'deleted');
  });

  it('isConfirmationRequest is false for anything else', () => {
    for (const value of [null, undefined, 'confirmation_required', {}, { status: 'forgotten', id: 'm' }, []]) {
      assert.equal(isConfirmationRequest(value), false);
    }
  });
});

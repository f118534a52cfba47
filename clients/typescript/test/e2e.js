// Against a running Engram server, when one is named: ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY
// (a Read key or better). Skipped otherwise. The repository's test/e2e/ suite, which starts the
// server itself, can run this file with those two variables set.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { NotFoundError } from '../dist/index.js';
import { makeClient } from './support/helpers.js';

const baseURL = process.env.ENGRAM_E2E_BASE_URL;
const apiKey = process.env.ENGRAM_E2E_API_KEY;
const skip = baseURL && apiKey ? false : 'set ENGRAM_E2E_BASE_URL and ENGRAM_E2E_API_KEY to run';

describe('against a running server', { skip }, () => {
  /** A client with the real fetch and real waits. */
  const connect = () => makeClient({ baseURL, apiKey, sleep: true, random: Math.random() }).client;

  it('lists the containers in reach', async () => {
    const { containers } = await connect().containers.list();
    assert.ok(Array.isArray(containers));
  });

  it('answers an unknown document id with NotFoundError carrying a trace id', async () => {
    await assert.rejects(connect().documents.get('doc_does_not_exist'), (error) => {
      assert.ok(error instanceof NotFoundError);
      assert.equal(error.code, 'not_found');
      assert.ok(error.trace_id);
      return true;
    });
  });
});

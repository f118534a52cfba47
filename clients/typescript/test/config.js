// Client configuration: the key and origin from options or the environment, the defaults, the
// checks made at construction, and that construction never touches the network.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { Client, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, EngramError } from '../dist/index.js';
import { KEY, KEY_HINT, reply, scriptedFetch, withEnv } from './support/helpers.js';

const CLEAN = { ENGRAM_API_KEY: undefined, ENGRAM_BASE_URL: undefined };

describe('configuration', () => {
  it('uses the defaults: 127.0.0.1:8787, 90 s, 2 retries', () => {
    withEnv(CLEAN, () => {
      const client = new Client({ apiKey: KEY });
      assert.equal(client.baseURL, 'http://127.0.0.1:8787');
      assert.equal(client.baseURL, DEFAULT_BASE_URL);
      assert.equal(client.timeout, 90_000);
      assert.equal(client.timeout, DEFAULT_TIMEOUT_MS);
      assert.equal(client.maxRetries, 2);
      assert.equal(client.maxRetries, DEFAULT_MAX_RETRIES);
    });
  });

  it('reads the key from ENGRAM_API_KEY and the origin from ENGRAM_BASE_URL', async () => {
    const { fetch, calls } = scriptedFetch([reply(200, { rules: [] })]);
    const client = withEnv(
      { ENGRAM_API_KEY: KEY, ENGRAM_BASE_URL: 'http://10.0.0.5:9000/' },
      () => new Client({ fetch }),
    );
    assert.equal(client.baseURL, 'http://10.0.0.5:9000');
    assert.equal(client.keyHint, KEY_HINT);
    // Read once at construction: the environment is restored by now.
    await client.rules();
    assert.equal(calls[0].url.href, 'http://10.0.0.5:9000/v1/rules');
    assert.equal(calls[0].headers.authorization, `Bearer ${KEY}`);
  });

  it('prefers explicit options over the environment', async () => {
    const { fetch, calls } = scriptedFetch([reply(200, { rules: [] })]);
    const env = { ENGRAM_API_KEY: 'egm_fromEnv_aaaaaaaaaaaaaaaaaaaaaaaa', ENGRAM_BASE_URL: 'http://env.example' };
    const client = withEnv(env, () => new Client({ apiKey: KEY, baseURL: 'http://explicit.example', fetch }));
    await client.rules();
    assert.equal(calls[0].url.origin, 'http://explicit.example');
    assert.equal(calls[0].headers.authorization, `Bearer ${KEY}`);
  });

  it('treats a blank option or variable as not given', () => {
    const client = withEnv({ ENGRAM_API_KEY: KEY, ENGRAM_BASE_URL: '  ' }, () => new Client({ apiKey: '' }));
    assert.equal(client.keyHint, KEY_HINT);
    assert.equal(client.baseURL, DEFAULT_BASE_URL);
  });

  it('throws EngramError at construction when no key is given or set', () => {
    for (const env of [CLEAN, { ENGRAM_API_KEY: '', ENGRAM_BASE_URL: undefined }]) {
      withEnv(env, () => {
        assert.throws(
          () => new Client(),
          (error) => {
            assert.ok(error instanceof EngramError);
            assert.match(error.message, /ENGRAM_API_KEY/);
            return true;
          },
        );
        assert.throws(() => new Client({ apiKey: '   ' }), EngramError);
      });
    }
  });

  it('never touches the network at construction', () => {
    let called = 0;
    const fetch = async () => {
      called += 1;
      throw new Error('no network in a constructor');
    };
    new Client({ apiKey: KEY, fetch });
    new Client({ apiKey: KEY, baseURL: 'http://192.0.2.1:1', fetch });
    assert.equal(called, 0);
  });

  it('rejects a base URL that is not http(s), without echoing a key pasted into it', () => {
    assert.throws(() => new Client({ apiKey: KEY, baseURL: 'not a url' }), /baseURL is not a URL/);
    assert.throws(() => new Client({ apiKey: KEY, baseURL: 'ftp://example.org' }), /http:\/\/ or https:\/\//);
    assert.throws(
      () => new Client({ apiKey: KEY, baseURL: KEY }),
      (error) => {
        assert.ok(error instanceof EngramError);
        assert.ok(!error.message.includes(KEY));
        return true;
      },
    );
  });

  it('rejects a timeout or maxRetries out of range', () => {
    for (const timeout of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      assert.throws(() => new Client({ apiKey: KEY, timeout }), /timeout/);
    }
    for (const maxRetries of [-1, 1.5, Number.NaN]) {
      assert.throws(() => new Client({ apiKey: KEY, maxRetries }), /maxRetries/);
    }
    assert.equal(new Client({ apiKey: KEY, maxRetries: 0 }).maxRetries, 0);
    assert.equal(new Client({ apiKey: KEY, timeout: 5_000 }).timeout, 5_000);
  });

  it('shows the key only as its hint: first 8 and last 4 characters', () => {
    assert.equal(new Client({ apiKey: KEY }).keyHint, 'egm_k7Qa…9fZx');
    // Too short to hide anything that way: nothing of it is shown.
    assert.equal(new Client({ apiKey: 'short-key' }).keyHint, '…');
    assert.equal(new Client({ apiKey: 'x'.repeat(23) }).keyHint, '…');
    assert.equal(new Client({ apiKey: `${'a'.repeat(8)}${'b'.repeat(12)}cccc` }).keyHint, 'aaaaaaaa…cccc');
  });
});

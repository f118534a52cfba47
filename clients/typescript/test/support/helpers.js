/**
 * Test helpers: a scripted transport (an injected fetch that answers from a list and records every
 * call), a client wired to it with recorded waits, and a loopback HTTP server on an ephemeral port.
 * makeClient also takes a real baseURL and no script, so an end-to-end test can reuse it.
 */

import http from 'node:http';

import { Client } from '../../dist/index.js';

/** A key shaped like a real developer key (`egm_<key_id>_<secret>`), long enough to have a hint. */
export const KEY = 'egm_k7Qa2xYb_S3cretS3cretS3cretS3cretS3cret9fZx';
export const KEY_HINT = 'egm_k7Qa…9fZx';
export const BASE_URL = 'http://engram.test';

/**
 * A JSON answer for a script. `body` is serialised unless it is already a string.
 * @param {number} status
 * @param {unknown} [body]
 * @param {Record<string, string>} [headers]
 */
export function reply(status, body, headers = {}) {
  return { status, body, headers };
}

/** A script step that never answers: the attempt only ends when the client's timer aborts it. */
export const HANG = Symbol('hang');

/**
 * An injected fetch that answers each call with the next step of `script`:
 * a reply(...), an Error (thrown as a connection failure), HANG, or a function of the call.
 * `calls` records what was sent; running past the end of the script fails the test.
 * @param {Array<unknown>} script
 */
export function scriptedFetch(script) {
  const steps = [...script];
  /** @type {Array<{method: string, url: URL, headers: Record<string, string>, body: unknown, rawBody: string | undefined}>} */
  const calls = [];

  /** @param {string} url @param {RequestInit} init */
  async function fetch(url, init) {
    const headers = Object.fromEntries(new Headers(init.headers).entries());
    const rawBody = typeof init.body === 'string' ? init.body : undefined;
    const call = {
      method: init.method ?? 'GET',
      url: new URL(url),
      headers,
      body: rawBody === undefined ? undefined : JSON.parse(rawBody),
      rawBody,
    };
    calls.push(call);
    if (steps.length === 0) throw new Error(`script exhausted: unexpected call ${call.method} ${url}`);
    let step = steps.shift();
    if (typeof step === 'function') step = await step(call);
    if (step instanceof Error) throw step;
    if (step === HANG) {
      return new Promise((_, reject) => {
        init.signal?.addEventListener('abort', () => reject(init.signal?.reason ?? new Error('aborted')));
      });
    }
    if (step instanceof Response) return step;
    const {
      status,
      body,
      headers: replyHeaders,
    } = /** @type {{status: number, body: unknown, headers: Record<string,string>}} */ (step);
    const text = body === undefined ? null : typeof body === 'string' ? body : JSON.stringify(body);
    const withType =
      text !== null && typeof body !== 'string'
        ? { 'content-type': 'application/json', ...replyHeaders }
        : replyHeaders;
    return new Response(status === 204 ? null : text, { status, headers: withType });
  }

  return { fetch, calls };
}

/**
 * A client for tests. With `script`, it sends through scriptedFetch and records each wait instead
 * of sleeping; `random` fixes the jitter (0 means none). Without `script` it uses the real fetch,
 * for loopback and end-to-end tests.
 * @param {{script?: Array<unknown>, apiKey?: string, baseURL?: string, timeout?: number, maxRetries?: number, random?: number, sleep?: boolean}} [options]
 */
export function makeClient(options = {}) {
  const { script, random = 0, sleep = false, ...rest } = options;
  const scripted = script ? scriptedFetch(script) : undefined;
  /** @type {number[]} */
  const waits = [];
  const client = new Client({
    apiKey: KEY,
    baseURL: BASE_URL,
    ...rest,
    ...(scripted ? { fetch: scripted.fetch } : {}),
    _hooks: {
      random: () => random,
      sleep: async (ms) => {
        waits.push(ms);
        if (sleep) await new Promise((resolve) => setTimeout(resolve, ms));
      },
    },
  });
  return { client, calls: scripted?.calls ?? [], waits };
}

/**
 * A real HTTP server on 127.0.0.1 and an ephemeral port, answering with `handler`.
 * @param {(req: http.IncomingMessage, res: http.ServerResponse, body: string) => void} handler
 */
export async function startLoopback(handler) {
  /** @type {Array<{method: string | undefined, url: string | undefined, headers: http.IncomingHttpHeaders, body: string}>} */
  const requests = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      requests.push({ method: req.method, url: req.url, headers: req.headers, body });
      handler(req, res, body);
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    baseURL: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve(undefined));
      }),
  };
}

/**
 * Runs `fn` with the given environment variables set (undefined unsets), then restores them.
 * @param {Record<string, string | undefined>} vars
 * @param {() => unknown} fn
 */
export function withEnv(vars, fn) {
  const saved = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]));
  const apply = (/** @type {Record<string, string | undefined>} */ values) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(vars);
  try {
    return fn();
  } finally {
    apply(saved);
  }
}

/** An error envelope as the server writes it. */
export function envelope(code, message, { details = {}, retryable = false, trace_id = 'trc_test' } = {}) {
  return { code, message, details, retryable, trace_id };
}

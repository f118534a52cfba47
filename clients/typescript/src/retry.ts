/**
 * The one request loop: send, and on a connection error, a timeout, or 408, 409, 429, 5xx with
 * retries left, wait and send again. What a failed answer becomes is decided in errors.ts.
 */

import { APIConnectionError, APIError, APITimeoutError, errorFromResponse, isRetryableStatus } from './errors.js';
import { redact } from './internal/secret.js';

/** The subset of `fetch` the client calls. The global `fetch` of Node 18+, Deno and Bun fits. */
export type FetchLike = (url: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds. Injected in tests so no test sleeps. */
export type Sleep = (ms: number) => Promise<void>;

/** Everything the loop needs, fixed when the client is made. */
export interface Transport {
  fetch: FetchLike;
  /** Per attempt, in milliseconds, covering the answer's body as well as its headers. */
  timeout: number;
  maxRetries: number;
  /** Only used to keep the key out of error messages. */
  apiKey: string;
  sleep: Sleep;
  /** A number in [0, 1), as Math.random gives. */
  random: () => number;
}

/** One prepared HTTP request. */
export interface Outgoing {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

const RETRY_AFTER_CAP_MS = 60_000;
const BACKOFF_START_MS = 500;
const BACKOFF_CAP_MS = 8_000;
const MAX_JITTER = 0.25;

export const defaultSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The wait before retry number `retry` (0 for the first retry): a numeric `Retry-After` in
 * seconds when the answer had one, capped at 60 s; otherwise 0.5 s doubling per retry up to 8 s,
 * less up to 25 % jitter.
 */
function retryDelay(retry: number, retryAfter: string | null, random: () => number): number {
  const seconds = parseRetryAfter(retryAfter);
  if (seconds !== null) return Math.min(seconds * 1000, RETRY_AFTER_CAP_MS);
  const backoff = Math.min(BACKOFF_START_MS * 2 ** retry, BACKOFF_CAP_MS);
  return backoff * (1 - MAX_JITTER * random());
}

/** Seconds from a numeric `Retry-After`; null for an absent, negative or HTTP-date value. */
function parseRetryAfter(value: string | null): number | null {
  if (value === null || !/^\s*\d+(\.\d+)?\s*$/.test(value)) return null;
  return Number(value);
}

type Attempt =
  | { kind: 'answer'; status: number; headers: Headers; text: string }
  | { kind: 'timeout'; cause: unknown }
  | { kind: 'connection'; cause: unknown };

/**
 * Sends `request`, retrying as the contract says, and resolves with the parsed JSON body of a 2xx
 * answer (undefined for an empty one). Throws the errorFromResponse class for an error answer,
 * APITimeoutError or APIConnectionError when no answer came, once the retries are used up.
 */
export async function sendWithRetries(transport: Transport, request: Outgoing): Promise<unknown> {
  for (let retry = 0; ; retry++) {
    const attempt = await sendOnce(transport, request);
    if (attempt.kind === 'answer' && attempt.status >= 200 && attempt.status < 300) {
      return parseSuccess(attempt);
    }
    const again = attempt.kind !== 'answer' || isRetryableStatus(attempt.status);
    if (again && retry < transport.maxRetries) {
      const retryAfter = attempt.kind === 'answer' ? attempt.headers.get('retry-after') : null;
      await transport.sleep(retryDelay(retry, retryAfter, transport.random));
      continue;
    }
    throw failure(transport, request, attempt);
  }
}

/** One attempt under its own timer. Never throws: every outcome is a value for the loop to judge. */
async function sendOnce(transport: Transport, request: Outgoing): Promise<Attempt> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, transport.timeout);
  // Raced against the fetch as well as passed to it, so a custom fetch that ignores `signal`
  // still times out. Marked handled: it may reject between the two awaits below.
  const aborted = new Promise<never>((_, reject) => {
    controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const init: RequestInit = { method: request.method, headers: request.headers, signal: controller.signal };
    if (request.body !== undefined) init.body = request.body;
    const response = await Promise.race([transport.fetch(request.url, init), aborted]);
    // The body is read under the same timer: a server that stalls mid-answer is a timeout too.
    const text = await Promise.race([response.text(), aborted]);
    return { kind: 'answer', status: response.status, headers: response.headers, text };
  } catch (cause) {
    return timedOut ? { kind: 'timeout', cause } : { kind: 'connection', cause };
  } finally {
    clearTimeout(timer);
  }
}

function parseSuccess(attempt: Extract<Attempt, { kind: 'answer' }>): unknown {
  if (attempt.text.trim() === '') return undefined;
  try {
    return JSON.parse(attempt.text);
  } catch (cause) {
    throw new APIError({
      status: attempt.status,
      message: `Engram answered HTTP ${attempt.status} with a body that is not JSON.`,
      trace_id: attempt.headers.get('x-trace-id'),
      headers: attempt.headers,
      cause,
    });
  }
}

/** The error to throw for the last attempt. Every message passes through redact, so the key never shows. */
function failure(transport: Transport, request: Outgoing, attempt: Attempt): APIError {
  const key = transport.apiKey;
  if (attempt.kind === 'answer') {
    return errorFromResponse(attempt.status, redact(attempt.text, key), attempt.headers);
  }
  const where = redact(`${request.method} ${request.url}`, key);
  const cause = scrub(attempt.cause, key);
  if (attempt.kind === 'timeout') {
    return new APITimeoutError({ message: `No answer from Engram within ${transport.timeout} ms (${where}).`, cause });
  }
  const reason = cause instanceof Error ? describe(cause) : String(cause);
  return new APIConnectionError({ message: `Could not reach Engram (${where}): ${reason}`, cause });
}

/**
 * The cause to attach to a connection error. A fetch is not expected to put the request's headers
 * in its errors, but if one does, its chain is rebuilt with the key replaced by the hint, because
 * printing an error prints its cause.
 */
function scrub(cause: unknown, key: string, depth = 0): unknown {
  if (!(cause instanceof Error) || depth > 5) {
    return typeof cause === 'string' ? redact(cause, key) : cause;
  }
  const inner = cause.cause === undefined ? undefined : scrub(cause.cause, key, depth + 1);
  if (!cause.message.includes(key) && !(cause.stack ?? '').includes(key) && inner === cause.cause) return cause;
  const copy = new Error(redact(cause.message, key), inner === undefined ? undefined : { cause: inner });
  copy.name = cause.name;
  copy.stack = redact(cause.stack ?? '', key);
  return copy;
}

/** An error's message with its cause's, as Node's `fetch failed` hides the useful part in `cause`. */
function describe(error: Error): string {
  const inner = error.cause instanceof Error ? error.cause.message : undefined;
  return inner && inner !== error.message ? `${error.message} (${inner})` : error.message;
}

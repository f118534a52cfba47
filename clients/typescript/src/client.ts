/**
 * The Client: configuration, the top-level methods of the contract's method map, and the resources
 * (`containers`, `documents`, `memories`). Sending and retrying live in retry.ts.
 */

import { EngramError } from './errors.js';
import { readEnv } from './internal/env.js';
import { buildURL, type Requester, type RequestSpec } from './internal/request.js';
import { idempotencyKeyFor } from './internal/idempotency.js';
import { keyHint, redact } from './internal/secret.js';
import { Containers } from './resources/containers.js';
import { Documents } from './resources/documents.js';
import { Memories } from './resources/memories.js';
import { defaultSleep, sendWithRetries, type FetchLike, type Sleep, type Transport } from './retry.js';
import type {
  AddDocumentParams,
  AddDocumentResponse,
  AskParams,
  AskResponse,
  Profile,
  ProfileParams,
  RulesResponse,
  SearchParams,
  SearchResponse,
  WriteOptions,
} from './types.js';

export const DEFAULT_BASE_URL = 'http://127.0.0.1:8787';
export const DEFAULT_TIMEOUT_MS = 90_000;
export const DEFAULT_MAX_RETRIES = 2;

export interface ClientOptions {
  /** The developer key (or consent token). Defaults to the `ENGRAM_API_KEY` environment variable. */
  apiKey?: string;
  /** The server's origin. Defaults to `ENGRAM_BASE_URL`, else `http://127.0.0.1:8787`. */
  baseURL?: string;
  /** Per attempt, in milliseconds. Default 90 000: the first search after a quiet spell can take a minute. */
  timeout?: number;
  /** How many times a failed call is sent again. Default 2. */
  maxRetries?: number;
  /** A `fetch` to send with instead of the global one (a proxy agent, a test double). */
  fetch?: FetchLike;
  /**
   * @internal Replaces the wait between attempts and the jitter source, so tests assert waits
   * without sleeping. Stripped from the published types; not part of the supported API.
   */
  _hooks?: { sleep?: Sleep; random?: () => number };
}

/**
 * A client for one Engram server and one credential. Construction checks the configuration and
 * never touches the network; each method is one REST call.
 */
export class Client {
  /** The origin every path is appended to, without a trailing slash. */
  readonly baseURL: string;
  readonly timeout: number;
  readonly maxRetries: number;
  /** The key as it may be shown: first 8 and last 4 characters. The key itself is never exposed. */
  readonly keyHint: string;

  readonly containers: Containers;
  readonly documents: Documents;
  readonly memories: Memories;

  readonly #request: Requester;

  /**
   * Throws EngramError when no key is given or found in `ENGRAM_API_KEY`, when `baseURL` is not an
   * http(s) URL, or when `timeout` or `maxRetries` is out of range.
   */
  constructor(options: ClientOptions = {}) {
    const apiKey = options.apiKey?.trim() || readEnv('ENGRAM_API_KEY');
    if (!apiKey) {
      throw new EngramError('No API key: pass `apiKey` to new Client() or set ENGRAM_API_KEY.');
    }
    this.baseURL = normalizeBaseURL(options.baseURL?.trim() || readEnv('ENGRAM_BASE_URL') || DEFAULT_BASE_URL, apiKey);
    this.timeout = options.timeout ?? DEFAULT_TIMEOUT_MS;
    if (!(Number.isFinite(this.timeout) && this.timeout > 0)) {
      throw new EngramError('`timeout` must be a positive number of milliseconds.');
    }
    this.maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    if (!(Number.isInteger(this.maxRetries) && this.maxRetries >= 0)) {
      throw new EngramError('`maxRetries` must be a whole number, 0 or more.');
    }
    this.keyHint = keyHint(apiKey);

    const transport: Transport = {
      fetch: options.fetch ?? globalFetch(),
      timeout: this.timeout,
      maxRetries: this.maxRetries,
      apiKey,
      sleep: options._hooks?.sleep ?? defaultSleep,
      random: options._hooks?.random ?? Math.random,
    };
    const headers = { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' };
    const baseURL = this.baseURL;
    this.#request = async <T>(spec: RequestSpec): Promise<T> => {
      const hasBody = spec.body !== undefined;
      // Built once per call: every retry sends the same headers, so the same Idempotency-Key.
      const result = await sendWithRetries(transport, {
        method: spec.method,
        url: buildURL(baseURL, spec.path, spec.query),
        headers: {
          ...headers,
          ...(hasBody ? { 'Content-Type': 'application/json' } : {}),
          ...(spec.idempotencyKey !== undefined ? { 'Idempotency-Key': spec.idempotencyKey } : {}),
        },
        ...(hasBody ? { body: JSON.stringify(spec.body) } : {}),
      });
      return result as T;
    };

    this.containers = new Containers(this.#request);
    this.documents = new Documents(this.#request);
    this.memories = new Memories(this.#request);
  }

  /**
   * POST /v1/documents (add_document, Read & write). Give exactly one of `content` and `url`. The
   * document lands at once (`status: "queued"`) and is searchable once learned; a `custom_id` seen
   * before answers `status: "exists"` and starts nothing. Retries carry one idempotency key, so a
   * retried call adds the document once ({@link WriteOptions}).
   */
  async add(params: AddDocumentParams, options?: WriteOptions): Promise<AddDocumentResponse> {
    return this.#request({
      method: 'POST',
      path: '/v1/documents',
      body: params,
      idempotencyKey: await idempotencyKeyFor(options),
    });
  }

  /**
   * POST /v1/search (search_memories, Read): passages, most relevant first. This is retrieval, not
   * an answer (that is `ask`). Check `containers[].error`: a failed container is not an empty one.
   */
  search(params: SearchParams): Promise<SearchResponse> {
    return this.#request({ method: 'POST', path: '/v1/search', body: params });
  }

  /**
   * GET /v1/profile (get_profile, Read plus the profile tick): the person's `static` and `dynamic`
   * facts, and with `q` also the relevant passages in `results`.
   */
  profile(params: ProfileParams = {}): Promise<Profile> {
    return this.#request({ method: 'GET', path: '/v1/profile', query: { q: params.q } });
  }

  /** POST /v1/ask (ask_agent, held only by an agent share): the shared agent's reply. */
  ask(params: AskParams): Promise<AskResponse> {
    return this.#request({ method: 'POST', path: '/v1/ask', body: params });
  }

  /** GET /v1/rules (memory_rules, Read): the person's standing rules for this credential. */
  rules(): Promise<RulesResponse> {
    return this.#request({ method: 'GET', path: '/v1/rules' });
  }
}

/** Strips trailing slashes and checks that the origin is an http(s) URL. */
function normalizeBaseURL(raw: string, apiKey: string): string {
  const trimmed = raw.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    // Redacted: a key pasted into the wrong option must not end up in the message.
    throw new EngramError(`baseURL is not a URL: ${redact(JSON.stringify(raw), apiKey)}.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EngramError(`baseURL must start with http:// or https://, not ${url.protocol}//.`);
  }
  return trimmed;
}

/** The runtime's own fetch, looked up on each call so a fetch installed later is used too. */
function globalFetch(): FetchLike {
  if (typeof globalThis.fetch !== 'function') {
    throw new EngramError('This runtime has no global fetch: pass `fetch` to new Client().');
  }
  return (url, init) => globalThis.fetch(url, init);
}

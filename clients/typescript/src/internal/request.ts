/**
 * What a resource method hands to the request loop, and the helpers that turn it into a URL.
 * Sending, waiting and retrying live in ../retry.ts; statuses become errors in ../errors.ts.
 */

import { EngramError } from '../errors.js';

export type QueryValue = string | number | boolean | null | undefined;

/** One REST call as a resource method describes it. */
export interface RequestSpec {
  method: 'GET' | 'POST' | 'DELETE';
  /** Starts with `/v1/`; path parameters already encoded with {@link pathParam}. */
  path: string;
  /** Null and undefined values are left out of the query string. */
  query?: Record<string, QueryValue>;
  /** Sent as JSON. */
  body?: unknown;
  /** Sent as `Idempotency-Key` on every attempt (write methods). */
  idempotencyKey?: string;
}

/** Sends one call and resolves with the parsed JSON body; throws an APIError subclass otherwise. */
export type Requester = <T>(spec: RequestSpec) => Promise<T>;

/**
 * Checks and URL-encodes a path parameter. Throws EngramError, before anything is sent, when the
 * value is not a string or is empty: `/v1/documents/` would address a different route.
 */
export function pathParam(name: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new EngramError(`${name} must be a non-empty string.`);
  }
  return encodeURIComponent(value);
}

/** `baseURL` + `path` + the query string built from the values that are set. */
export function buildURL(baseURL: string, path: string, query?: Record<string, QueryValue>): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query ?? {})) {
    if (value !== undefined && value !== null) params.append(name, String(value));
  }
  const search = params.toString();
  return `${baseURL}${path}${search ? `?${search}` : ''}`;
}

/**
 * engram-client: the TypeScript client for Engram. This file only re-exports; importing the
 * package has no side effects.
 */

export { Client, DEFAULT_BASE_URL, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS, type ClientOptions } from './client.js';
export {
  APIConnectionError,
  APIError,
  APITimeoutError,
  AuthenticationError,
  BadRequestError,
  ConflictError,
  EngramError,
  InternalServerError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  UnprocessableEntityError,
  errorFromResponse,
  type APIErrorInit,
} from './errors.js';
export { isConfirmationRequest } from './confirmation.js';
export type { FetchLike } from './retry.js';
export type { Containers } from './resources/containers.js';
export type { Documents } from './resources/documents.js';
export type { Memories } from './resources/memories.js';
export type * from './types.js';

/**
 * The errors the client throws, and errorFromResponse: the only place an HTTP status becomes a
 * class. Whether and when to send again is decided in retry.ts.
 */

/** Root of every error this package throws, including bad arguments caught before sending. */
export class EngramError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** What an APIError is made from; every field but `message` has a default. */
export interface APIErrorInit {
  message: string;
  status?: number | null;
  code?: string | null;
  details?: Record<string, unknown>;
  retryable?: boolean;
  trace_id?: string | null;
  headers?: Headers | null;
  cause?: unknown;
}

/**
 * A call that failed: the server refused it, or (as APIConnectionError) no answer came.
 * The fields mirror the error envelope `{code, message, details, retryable, trace_id}`.
 */
export class APIError extends EngramError {
  /** The HTTP status; null when no answer came. */
  readonly status: number | null;
  /** Which rule refused, e.g. `validation`, `unauthorized`, `rate_limited`; null without an envelope. */
  readonly code: string | null;
  readonly details: Record<string, unknown>;
  /** The server's own view of whether trying again can help. */
  readonly retryable: boolean;
  /** Quote it when reporting a problem: the server's log line for the request carries it. */
  readonly trace_id: string | null;
  /** The answer's headers; null when no answer came. */
  readonly headers: Headers | null;

  constructor(init: APIErrorInit) {
    super(init.message, init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status ?? null;
    this.code = init.code ?? null;
    this.details = init.details ?? {};
    this.retryable = init.retryable ?? false;
    this.trace_id = init.trace_id ?? null;
    this.headers = init.headers ?? null;
  }
}

/** 400: a rule refused the call (empty `q`, both or neither of `content` and `url`, a missing `container`). */
export class BadRequestError extends APIError {
  declare readonly status: 400;
}
/** 401: no credential was sent. */
export class AuthenticationError extends APIError {
  declare readonly status: 401;
}
/** 403 `unauthorized`: a bad, expired or revoked key, a container outside reach, or a verb above the key's level. */
export class PermissionDeniedError extends APIError {
  declare readonly status: 403;
}
/** 404 `not_found`: no document or memory with that id. */
export class NotFoundError extends APIError {
  declare readonly status: 404;
}
/** 409: a conflicting write; raised after the retries ran out. */
export class ConflictError extends APIError {
  declare readonly status: 409;
}
/** 422: a malformed body (`validation`) or no model to run a turn (`capability_unavailable`). */
export class UnprocessableEntityError extends APIError {
  declare readonly status: 422;
}
/** 429 `rate_limited`: too many calls on this key (`details.limit_per_min`) or too many concurrent turns. */
export class RateLimitError extends APIError {
  declare readonly status: 429;
}
/** 5xx: the server failed; raised after the retries ran out. */
export class InternalServerError extends APIError {
  declare readonly status: number;
}

/** No answer came: the server could not be reached or the connection broke. Retried, then raised. */
export class APIConnectionError extends APIError {
  declare readonly status: null;
  constructor(init: APIErrorInit) {
    super({ retryable: true, ...init, status: null, headers: null });
  }
}
/** No answer came within the client's `timeout`. Retried, then raised. */
export class APITimeoutError extends APIConnectionError {}

/** The statuses worth sending again: 408, 409, 429 and every 5xx. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

type APIErrorClass = new (init: APIErrorInit) => APIError;

const CLASS_BY_STATUS: Readonly<Record<number, APIErrorClass>> = {
  400: BadRequestError,
  401: AuthenticationError,
  403: PermissionDeniedError,
  404: NotFoundError,
  409: ConflictError,
  422: UnprocessableEntityError,
  429: RateLimitError,
};

/**
 * Turns an error answer into its class: 400 BadRequestError, 401 AuthenticationError,
 * 403 PermissionDeniedError, 404 NotFoundError, 409 ConflictError, 422 UnprocessableEntityError,
 * 429 RateLimitError, 5xx InternalServerError, any other status a plain APIError.
 *
 * `body` is the answer's text or its parsed JSON. The fields come from the error envelope when the
 * body is one; otherwise `retryable` follows the status and `trace_id` the `X-Trace-Id` header.
 */
export function errorFromResponse(
  status: number,
  body: unknown,
  headers?: Headers | Record<string, string> | null,
): APIError {
  const parsed = typeof body === 'string' ? parseJSON(body) : body;
  const envelope = isObject(parsed) ? parsed : {};
  const headerBag = headers == null ? null : new Headers(headers);

  const Class = CLASS_BY_STATUS[status] ?? (status >= 500 && status <= 599 ? InternalServerError : APIError);
  return new Class({
    status,
    code: nonEmptyString(envelope.code),
    message: nonEmptyString(envelope.message) ?? fallbackMessage(status, body),
    details: isObject(envelope.details) ? envelope.details : {},
    retryable: typeof envelope.retryable === 'boolean' ? envelope.retryable : isRetryableStatus(status),
    trace_id: nonEmptyString(envelope.trace_id) ?? nonEmptyString(headerBag?.get('x-trace-id')),
    headers: headerBag,
  });
}

/** A message for an answer that carries no envelope (a proxy's page, an empty body). */
function fallbackMessage(status: number, body: unknown): string {
  const text = typeof body === 'string' ? body.replace(/\s+/g, ' ').trim() : '';
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return `Engram answered HTTP ${status} without an error envelope${excerpt ? `: ${excerpt}` : '.'}`;
}

function parseJSON(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function nonEmptyString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The one error operations throw, and the table that turns its code into an HTTP status. */

export type ErrorCode =
  | 'validation'
  | 'unauthorized'
  | 'not_found'
  | 'capability_unavailable'
  | 'rate_limited'
  | 'conflict'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  validation: 400,
  unauthorized: 403,
  not_found: 404,
  conflict: 409,
  capability_unavailable: 422,
  rate_limited: 429,
  internal: 500,
};

const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['rate_limited', 'conflict', 'internal']);

export class ServiceError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Overrides the code's usual status: a malformed body is `validation` at 422, a rule is 400. */
    status?: number,
  ) {
    super(message);
    this.status = status ?? STATUS[code];
  }

  get retryable(): boolean {
    return RETRYABLE.has(this.code);
  }
}

/** A body or parameter that does not parse: 422 `validation`, naming the fields. */
export function malformed(message: string, details: Record<string, unknown> = {}): ServiceError {
  return new ServiceError('validation', message, details, 422);
}

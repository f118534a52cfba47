/** The one error operations throw, and the table that turns its code into an HTTP status. */

export type ErrorCode =
  | 'validation'
  | 'unauthorized'
  | 'not_found'
  | 'method_not_allowed'
  | 'capability_unavailable'
  | 'rate_limited'
  | 'conflict'
  | 'storage_full'
  | 'unavailable'
  | 'internal';

/**
 * The statuses a refusal is answered with: each code's own (STATUS), or one a surface chooses
 * (401 without a bearer, 422, 431).
 */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 422 | 429 | 431 | 500 | 503 | 507;

const STATUS: Record<ErrorCode, ErrorStatus> = {
  validation: 400,
  unauthorized: 403,
  not_found: 404,
  method_not_allowed: 405,
  conflict: 409,
  capability_unavailable: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  storage_full: 507,
};

const RETRYABLE: ReadonlySet<ErrorCode> = new Set([
  'rate_limited',
  'conflict',
  'storage_full',
  'unavailable',
  'internal',
]);

export class ServiceError extends Error {
  readonly status: ErrorStatus;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
    /** Overrides the code's usual status: a malformed body is `validation` at 422, a rule is 400. */
    status?: ErrorStatus,
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

/**
 * A full disk as the store reports it: SQLite's SQLITE_FULL, or ENOSPC from a file of its own. The
 * write was not saved, and the same write can succeed once space is freed.
 */
export function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  // PostgreSQL's disk_full is its SQLSTATE, which Bun's client gives as errno.
  return code === 'SQLITE_FULL' || code === 'ENOSPC' || (err as { errno?: unknown } | null)?.errno === '53100';
}

/**
 * A write refused because a row it refers to is gone: a container, document or fact deleted
 * between the call's reach check and its write (SQLite's foreign key failure, or PostgreSQL's
 * foreign_key_violation, 23503). The write's transaction rolled back: nothing was written.
 */
function isMissingReference(err: unknown): boolean {
  return (
    (err as { code?: unknown } | null)?.code === 'SQLITE_CONSTRAINT_FOREIGNKEY' ||
    (err as { errno?: unknown } | null)?.errno === '23503'
  );
}

/**
 * What a failure tells the caller: a ServiceError as it is, a full disk as 507 `storage_full`
 * (retryable), a write that lost a race with a deletion as 409 `conflict` (retryable: the call
 * made again is answered from what is there now, e.g. 403 for the deleted container), anything
 * else null: a fault of ours, answered 500 `internal` by the door.
 */
export function refusalOf(err: unknown): ServiceError | null {
  if (err instanceof ServiceError) return err;
  if (isStorageFull(err)) {
    return new ServiceError(
      'storage_full',
      "The server's storage is full, so this write was not saved. Reads still work; try again once space is freed.",
    );
  }
  if (isMissingReference(err)) {
    return new ServiceError(
      'conflict',
      'Something this call refers to (a container, document or fact) was deleted while it ran, so nothing was written. Try again to be answered from what is there now.',
      { reason: 'deleted_meanwhile' },
    );
  }
  if (err instanceof StoreUnavailable) {
    return new ServiceError(
      'unavailable',
      'The database does not answer, so this request was not carried out. Try again shortly.',
    );
  }
  return null;
}

/**
 * The store could not be reached (a shared database down, restarting, or not answering in time):
 * 503 `unavailable`, retryable. Thrown by a store over the network; here for the same reason as
 * UniqueViolation below.
 */
export class StoreUnavailable extends Error {
  override readonly name = 'StoreUnavailable';
}

/**
 * A write refused because another row holds the same unique value (a container's name, an
 * account's email). Each store implementation translates its engine's error into this, so that
 * operations can answer `conflict` without knowing the engine. It lives here, not in storage, so
 * that operations load no storage module (the light CLI commands load operations, never a store).
 */
export class UniqueViolation extends Error {
  override readonly name = 'UniqueViolation';
}

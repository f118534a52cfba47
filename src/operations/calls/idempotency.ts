/**
 * Idempotency keys: a write sent again with its first attempt's key (a client retrying after a lost
 * answer) gets the first answer back instead of being carried out twice. REST takes the key from the
 * `Idempotency-Key` header and MCP from a tool call's `_meta.idempotency_key`; both wrap the
 * operation with `idempotent`, so the rule is the same at both doors.
 */
import type { Caller } from '../../auth/caller';
import { DAY_MS } from '../../clock';
import { ServiceError } from '../../errors';
import { sha256 } from '../../ids';
import type { IdempotencyRecord, Transaction } from '../../storage/store';
import type { Context, Operation } from '../operation';

/** How long a key is remembered. */
const IDEMPOTENCY_TTL_MS = DAY_MS;

/** 1 to 255 printable ASCII characters (a UUID fits); anything else is refused. */
const KEY_FORMAT = /^[\x20-\x7e]{1,255}$/;

/** The operations a key guards: the contract's writes (docs/protocol.md; add_memory, add_document, delete_document, forget_memory). */
export function isGuarded(op: Operation): boolean {
  return op.access === 'suggest' || op.access === 'manage';
}

export interface Idempotent<O extends Operation> {
  /** The operation to invoke: the one given, or one whose run is guarded by the key. */
  op: O;
  /** True once the answer came from a first attempt rather than from running the operation. */
  replayed: boolean;
}

/**
 * Wraps `op` so that its run is guarded by `key` (undefined: no key, the operation as is; reads
 * ignore keys, repeating them changes nothing). The level check, the limiter, input validation
 * and usage records stay in `invoke`, before the guard. `field` names where the key came from
 * in a refusal: a key that is not 1 to 255 printable ASCII characters is 400 `validation`.
 */
export function idempotent<O extends Operation>(op: O, key: unknown, field: string): Idempotent<O> {
  const out: Idempotent<O> = { op, replayed: false };
  if (key === undefined || !isGuarded(op)) return out;
  const run: Operation['run'] = (ctx, input) => {
    if (typeof key !== 'string' || !KEY_FORMAT.test(key)) {
      throw new ServiceError('validation', `${field} must be 1 to 255 printable ASCII characters.`, {
        fields: [field],
      });
    }
    return runOnce(op, ctx, input, key, () => (out.replayed = true));
  };
  out.op = { ...op, run } as O;
  return out;
}

/**
 * Runs `op` once for `key`. The key is looked up and the write it guards is carried out in one
 * transaction, so two requests with one key cannot both run. When the operation waits on nothing
 * but the store (a document or a fact in a container, a delete), it runs inside that transaction
 * and its answer is remembered there too: a crash never leaves the write without its key, or the
 * key without its write. When it waits on a model (`Operation.waits`: a static fact merged by
 * the model), a transaction must not be held open meanwhile: the key is committed as pending
 * first, the operation runs with its own writes, and the answer is remembered when it comes, in a
 * second transaction. A crash in between leaves the key pending, and the next start marks it
 * interrupted (on a shared store, it counts as interrupted once older than any turn can run):
 * retries are refused rather than risk a second write.
 */
async function runOnce(
  op: Operation,
  ctx: Context,
  input: unknown,
  key: string,
  onReplay: () => void,
): Promise<unknown> {
  const now = ctx.clock.now();
  const record: IdempotencyRecord = {
    accountId: ctx.caller.accountId,
    credentialId: credentialOf(ctx.caller),
    key,
    digest: digestOf(op.name, input),
    state: 'done',
    response: null,
    createdAt: now,
    expiresAt: now + IDEMPOTENCY_TTL_MS,
  };
  /** The first attempt's answer when the key was seen before: a replay. */
  const earlier = async (tx: Transaction): Promise<{ answer: unknown } | null> => {
    await tx.idempotency.hold(record.accountId, record.credentialId, key);
    await tx.idempotency.deleteExpired(now);
    const seen = await tx.idempotency.get(record.accountId, record.credentialId, key, now);
    if (!seen) return null;
    const answer = replay(seen, record.digest, now);
    onReplay();
    return { answer };
  };
  if (!op.waits?.(input)) {
    return ctx.store.transaction(async (tx) => {
      const seen = await earlier(tx);
      if (seen) return seen.answer;
      const result = await op.run({ ...ctx, store: tx }, input);
      await tx.idempotency.put({ ...record, response: JSON.stringify(result) });
      return result;
    });
  }
  const seen = await ctx.store.transaction(async (tx) => {
    const found = await earlier(tx);
    if (!found) await tx.idempotency.put({ ...record, state: 'pending' });
    return found;
  });
  if (seen) return seen.answer;
  try {
    const answer = await op.run(ctx, input);
    await remember(ctx, { ...record, response: JSON.stringify(answer) });
    return answer;
  } catch (err) {
    // Only a success is remembered: a failed first attempt may be retried for real.
    await forget(ctx, record);
    throw err;
  }
}

/**
 * A key pending this long was left by a process that stopped while its first attempt ran: no turn
 * waits on the model this long. Where one process owns the store its next start marks such keys
 * interrupted; where several share it (PostgreSQL), the others cannot tell a stopped one from a
 * slow one sooner.
 */
const PENDING_AT_MOST_MS = 15 * 60_000;

/** The remembered answer for a repeat of the same request; 409 `conflict` otherwise. */
function replay(seen: IdempotencyRecord, digest: string, now: number): unknown {
  if (seen.digest !== digest) {
    throw new FinalConflict(
      'This idempotency key was already used for a different request; use a new key for a new request.',
      {
        reason: 'key_reused',
      },
    );
  }
  if (seen.state === 'pending' && now - seen.createdAt < PENDING_AT_MOST_MS) {
    // Retryable: the first attempt is still running; once it answers, a retry gets that answer.
    throw new ServiceError(
      'conflict',
      'The first request with this idempotency key is still being carried out; retry shortly for its answer.',
      {
        reason: 'in_flight',
      },
    );
  }
  if (seen.state !== 'done') {
    throw new FinalConflict(
      'The server stopped while the first request with this idempotency key ran, so whether it was carried out is unknown. Check, then use a new key.',
      { reason: 'interrupted' },
    );
  }
  return JSON.parse(seen.response!);
}

/** A 409 that no retry with the same key can cure: the envelope says `retryable: false`. */
class FinalConflict extends ServiceError {
  constructor(message: string, details: Record<string, unknown>) {
    super('conflict', message, details);
  }
  override get retryable(): boolean {
    return false;
  }
}

/**
 * Records the answer of a turn that has finished. Its write is already committed and the answer
 * goes out either way; if recording fails, the key stays pending (retries are refused as in flight
 * until the next start marks it interrupted), which never repeats the write.
 */
async function remember(ctx: Context, record: IdempotencyRecord): Promise<void> {
  try {
    await ctx.store.idempotency.put(record);
  } catch (err) {
    ctx.log.error('idempotency key not recorded', { trace_id: ctx.traceId, error: String(err) });
  }
}

async function forget(ctx: Context, record: IdempotencyRecord): Promise<void> {
  try {
    await ctx.store.idempotency.delete(record.accountId, record.credentialId, record.key);
  } catch (err) {
    ctx.log.error('idempotency key not released', { trace_id: ctx.traceId, error: String(err) });
  }
}

/** Keys are per credential: another key, token or owner session with the same key is another request. */
function credentialOf(caller: Caller): string {
  // The command line ('') sends no idempotency key: only REST and MCP requests carry one.
  return caller.kind === 'owner' ? (caller.sessionId ?? '') : caller.grant.credentialId;
}

/**
 * The request as the operation reads it: its name (so method and path) and its input (the body with
 * the path and query parameters), keys sorted, so the same request digests the same from REST and MCP.
 */
function digestOf(name: string, input: unknown): string {
  return sha256(`${name}\n${JSON.stringify(sorted(input))}`);
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
  );
}

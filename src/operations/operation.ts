/**
 * How an operation is defined and invoked. REST routes and MCP tools both call `invoke`, so the
 * level check, the per-credential limiter, input validation and usage records happen once, here.
 */
import type { z } from 'zod';
import { type Access, holds, holdsTool, refuseOwnerOnly, refuseTool } from '../auth/access';
import type { ModelClient } from '../language-model/model-client';
import type { TurnBudget } from '../agent/turn-budget';
import { type Caller, countedCredential } from '../auth/caller';
import type { Clock } from '../clock';
import { malformed, refusalOf, ServiceError } from '../errors';
import type { Logger } from '../log';
import type { SearchEngine } from '../search/search-engine';
import type { VectorIndexes } from '../search/vector-indexes';
import type { AccessItem, Store, Transaction } from '../storage/store';
import type { AccessRecorder } from './calls/access-recorder';
import type { RequestLimiter } from './calls/rate-limiter';
import type { UsageRecorder } from './calls/usage-recorder';

/** What the server holds for every request. */
export interface Services {
  store: Store;
  clock: Clock;
  log: Logger;
  limiter: RequestLimiter;
  usage: UsageRecorder;
  /** What keys, consent tokens and shares read and wrote (the access log), written in batches. */
  accessLog: AccessRecorder;
  search: SearchEngine;
  /** The search engine's vector indexes, which learning adds to and forgetting takes from. */
  indexes: VectorIndexes;
  /** Wakes the learning runner when new work is queued. */
  notifyQueued(): void;
  /** The language model for turns, or null when none is configured (those turns answer 422). */
  model: ModelClient | null;
  /** The account's concurrent-turn budget. */
  turns: TurnBudget;
}

export interface Context extends Omit<Services, 'store'> {
  /** The store, or the transaction the call runs in (an idempotent write: see calls/idempotency.ts). */
  store: Transaction;
  caller: Caller;
  traceId: string;
}

/**
 * A context on the store itself, as every door makes it; only an idempotent write runs on a
 * transaction's `tx` (calls/idempotency.ts).
 */
export interface StoreContext extends Context {
  store: Store;
}

/** The one way a door (REST, MCP, the owner's pages, the CLI) makes an operation's context. */
export const contextFor = (services: Services, caller: Caller, traceId: string): StoreContext => ({
  ...services,
  caller,
  traceId,
});

export interface Operation<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  /** The tool name (snake_case); REST paths live in http/rest.ts. */
  name: string;
  description: string;
  access: Access;
  /** Offered only to credentials with the profile tick. */
  profile?: boolean;
  /** Never answered 429 by the per-credential limiter (docs/protocol.md, "Errors": search and add are exempt). */
  unlimited?: boolean;
  input: I;
  /** The success answer's shape; REST and MCP return exactly this JSON. */
  output: O;
  /**
   * What a successful call returned, wrote or removed, by id, for the access log of a key, consent
   * token or share. Operations without it are not logged (their usage still is).
   */
  accessed?(result: z.output<O>, input: z.output<I>): AccessItem[];
  /**
   * Whether this call waits on something other than the store (a model's answer). Such a call is
   * never run inside a transaction held open for it (an idempotency key's: see calls/idempotency.ts),
   * since every other write would wait meanwhile.
   */
  waits?(input: z.output<I>): boolean;
  run(ctx: Context, input: z.output<I>): z.output<O> | Promise<z.output<O>>;
}

export function defineOperation<I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>): Operation<I, O> {
  return op;
}

/** Whether the caller is offered the operation at all (it is absent from their tools if not). */
export function isOffered(op: Operation, caller: Caller): boolean {
  if (!holds(caller, op.access) || !holdsTool(caller, op.name)) return false;
  return !op.profile || caller.kind === 'owner' || caller.grant.profile;
}

/**
 * Runs an operation for a caller: refuses a tool the caller is not offered (403), applies the
 * limiter, validates the input (422 naming the fields), runs it, and records the call in the
 * developer key's usage, refused or not. `raw` may be a function that reads the input (REST's
 * body): it is called only after the level check, so a call above the level is 403 whatever its
 * body, and a body that does not parse is still recorded against the tool.
 */
export async function invoke<I extends z.ZodType, O extends z.ZodType>(
  op: Operation<I, O>,
  ctx: Context,
  raw: unknown | (() => Promise<unknown>),
): Promise<z.output<O>> {
  try {
    if (!isOffered(op, ctx.caller)) {
      throw op.access === 'owner' ? refuseOwnerOnly(op.name, ctx.caller) : refuseTool(op.name, ctx.caller);
    }
    if (!op.unlimited) await countRequest(ctx);
    const input = parseInput(op.input, typeof raw === 'function' ? await raw() : raw);
    const result = await op.run(ctx, input);
    record(ctx, op.name, 200);
    // Owner calls are not logged: the owner is the subject. Refused or failed calls returned nothing.
    if (op.accessed && ctx.caller.kind !== 'owner' && countedCredential(ctx.caller))
      ctx.accessLog.record(ctx.caller, op.name, op.accessed(result, input));
    return result;
  } catch (err) {
    // Usage shows the status the door answers (a full disk 507, a lost race with a deletion 409).
    const refusal = refusalOf(err);
    record(ctx, op.name, refusal?.status ?? 500, refusal ?? err);
    throw err;
  }
}

/**
 * Counts one request in the caller's per-credential limiter, or throws 429 `rate_limited` when the
 * minute is full. Stored credentials are limited; the owner's session is not. MCP calls it for
 * requests that reach no operation (initialize, tools/list), so all requests on a credential count.
 */
export async function countRequest(ctx: Context): Promise<void> {
  const credentialId = countedCredential(ctx.caller);
  if (credentialId) await ctx.limiter.take(credentialId);
}

function record(ctx: Context, tool: string, status: number, err?: unknown): void {
  // Shares are not keys: they have no usage view (and no row usage could point at). A see-as call is the owner's.
  if (ctx.caller.kind === 'owner' || ctx.caller.kind === 'share' || ctx.caller.seenByOwner) return;
  // The contract (docs/protocol.md, "Credentials"): refusals of ask_agent are not recorded in usage.
  if (err && tool === 'ask_agent') return;
  const code = err instanceof ServiceError ? err.code : null;
  const outcome = !err ? 'ok' : code === 'unauthorized' || code === 'rate_limited' ? 'refused' : 'error';
  ctx.usage.record({
    accountId: ctx.caller.accountId,
    credentialId: ctx.caller.grant.credentialId,
    tool,
    outcome,
    status,
    at: ctx.clock.now(),
  });
}

/** Validates input against the schema; a failure is 422 `validation` naming each field. */
export function parseInput<I extends z.ZodType>(schema: I, raw: unknown): z.output<I> {
  const parsed = schema.safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.map((i) => ({ field: i.path.join('.') || '(body)', message: i.message }));
  const fields = [...new Set(issues.map((i) => i.field))];
  throw malformed(`Invalid input: ${issues.map((i) => `${i.field}: ${i.message}`).join('; ')}`, { fields, issues });
}

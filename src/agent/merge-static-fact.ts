/**
 * The static-add turn: a standing fact merged into the profile's static side. Without a model the
 * fact is stored as given; with one, the model says whether it repeats a fact already there (kept
 * once), replaces one (rewritten, the old wording kept in its history) or is new.
 */
import { z } from 'zod';
import { newId } from '../ids';
import type { Clock } from '../clock';
import type { ChatMessage, ModelClient } from '../language-model/model-client';
import { insertFact, rewordFact } from '../learning/queue';
import type { Logger } from '../log';
import type { Fact, Transaction } from '../storage/store';

/** How many of the newest static facts the model compares a new one with. */
const COMPARED_FACTS = 50;

/** The decision and a fact's new wording. */
const DECISION_TOKENS = 192;

const Decision = z.object({
  action: z.enum(['add', 'duplicate', 'update']),
  fact: z.number().int().nullable().default(null),
  content: z.string().nullable().default(null),
});

export const MERGE_SYSTEM =
  "You keep the standing facts of a person's profile free of repeats and contradictions. Given the numbered " +
  'facts and one new fact, reply with one JSON object {"action": "add" | "duplicate" | "update", "fact": number or null, "content": string or null}: ' +
  '"duplicate" when a numbered fact already says the same (name it in "fact"); "update" when the new fact changes or ' +
  'contradicts a numbered fact (name it, and give the merged wording in "content"); otherwise "add".';

/** What the turn works with: the account's store (or the caller's transaction), the model if any, and who writes. */
export interface StaticFactTurn {
  store: Transaction;
  model: ModelClient | null;
  clock: Clock;
  log: Logger;
  traceId: string;
  accountId: string;
  /** The credential that saves the fact; null for the owner. */
  writtenBy: string | null;
}

/** Saves a static fact for the account; returns the fact the profile now holds for it. */
export async function mergeStaticFact(ctx: StaticFactTurn, content: string, title: string | null): Promise<Fact> {
  const { accountId, writtenBy } = ctx;
  const existing = ctx.model ? (await ctx.store.facts.listStatic(accountId)).slice(0, COMPARED_FACTS) : [];
  if (ctx.model && existing.length) {
    const decision = await decide(ctx, existing, content);
    const target = decision?.fact != null ? existing[decision.fact - 1] : undefined;
    if (decision?.action === 'duplicate' && target) return target;
    if (decision?.action === 'update' && target) {
      const merged = decision.content?.trim() || content;
      await rewordFact(ctx.store, accountId, target.id, merged, ctx.clock.now());
      return (await ctx.store.facts.get(accountId, target.id))!;
    }
  }
  const now = ctx.clock.now();
  const memory: Fact = {
    id: newId('mem'),
    accountId,
    containerId: null,
    content,
    title,
    static: true,
    createdAt: now,
    updatedAt: now,
    writtenBy,
  };
  await insertFact(ctx.store, memory);
  return memory;
}

/** The model's decision, or null when it gave none: the turn then stores the fact as given. */
async function decide(
  ctx: StaticFactTurn,
  existing: Fact[],
  content: string,
): Promise<z.infer<typeof Decision> | null> {
  const numbered = existing.map((m, i) => `[${i + 1}] ${m.content}`).join('\n');
  const messages: ChatMessage[] = [
    { role: 'system', content: MERGE_SYSTEM },
    { role: 'user', content: `Profile facts:\n${numbered}\n\nNew fact: ${content}` },
  ];
  try {
    return await ctx.model!.chatJson(messages, Decision, { name: 'decision', maxTokens: DECISION_TOKENS });
  } catch (err) {
    // Saving a static fact works without a model; one that fails only loses the refinement.
    ctx.log.warn('static fact merge fell back to storing as given', { trace_id: ctx.traceId, error: String(err) });
    return null;
  }
}

import { z } from 'zod';
import { ServiceError } from '../../errors';
import { rewordFact } from '../../learning/queue';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS, text } from '../../limits';
import { toFact } from '../shapes';

/**
 * The owner rewrites a fact: the old wording goes to its history, the new one is searchable at once,
 * and the fact counts as reviewed, so it outlives the document it was learned from (as confirm_fact).
 */
export const updateMemory = defineOperation({
  name: 'update_memory',
  description:
    "Rewrite a fact's content; the old wording is kept in its history and the fact is kept if its source document is deleted.",
  access: 'owner',
  output: S.Fact,
  input: z.object({ memory_id: z.string().min(1).max(100), content: text(LIMITS.contentBytes) }),
  async run(ctx, input) {
    const { accountId } = ctx.caller;
    const content = input.content.trim();
    if (!content) throw new ServiceError('validation', 'content must not be empty.', { fields: ['content'] });
    const now = ctx.clock.now();
    const found = await ctx.store.transaction(async (tx) => {
      const fact = await tx.facts.get(accountId, input.memory_id);
      if (!fact) return false;
      if (content !== fact.content) await rewordFact(tx, accountId, fact.id, content, now);
      return tx.facts.markReviewed(accountId, fact.id, now);
    });
    if (!found) throw new ServiceError('not_found', `No memory ${input.memory_id}.`, { memory_id: input.memory_id });
    ctx.notifyQueued(); // a fact in a container is embedded again under its new wording
    return toFact((await ctx.store.facts.get(accountId, input.memory_id))!);
  },
});

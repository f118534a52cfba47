import { z } from 'zod';
import { ServiceError } from '../../errors';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toFact } from '../shapes';

/** The owner says a fact is right: from then on it is theirs, and outlives the document it was learned from. */
export const confirmFact = defineOperation({
  name: 'confirm_fact',
  description: 'Confirm a fact as right. A confirmed fact is kept when the document it was learned from is deleted.',
  access: 'owner',
  output: S.Fact,
  input: z.object({ memory_id: z.string().min(1).max(100) }),
  async run(ctx, input) {
    const { accountId } = ctx.caller;
    if (!(await ctx.store.facts.markReviewed(accountId, input.memory_id, ctx.clock.now()))) {
      throw new ServiceError('not_found', `No memory ${input.memory_id}.`, { memory_id: input.memory_id });
    }
    return toFact((await ctx.store.facts.get(accountId, input.memory_id))!);
  },
});

import { z } from 'zod';
import { ServiceError } from '../../errors';
import { findFact } from '../find-in-reach';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { confirmParam } from '../schemas';
import { confirmation } from '../shapes';

export const forgetMemory = defineOperation({
  name: 'forget_memory',
  description:
    'Forget one fact, wherever it is searchable. Without confirm=true a confirmation request is returned instead: relay it to the person.',
  access: 'manage',
  output: S.ForgetMemoryResult,
  accessed: (r) => (r.status === 'forgotten' ? [{ action: 'removed', kind: 'fact', id: r.id }] : []),
  input: z.object({
    memory_id: z.string().min(1).max(100),
    container: z.string().max(100).nullish().describe('The container the fact is in, when known.'),
    confirm: confirmParam,
  }),
  async run(ctx, input) {
    const memory = await findFact(ctx, input.memory_id, input.container);
    if (input.confirm !== true) {
      return confirmation(
        'forget_memory',
        `Ask the person to confirm forgetting the fact "${memory.content.slice(0, 120)}"; then call again with confirm=true.`,
      );
    }
    // A turn: it counts in the account's budget, and needs no model (it is deterministic).
    return ctx.turns.run(ctx.caller.accountId, async () => {
      // Forgotten as a document's facts are: nothing of it stays in the index, the file or the WAL.
      const passageIds = await ctx.store.forgetting.forgetFact(ctx.caller.accountId, memory.id);
      if (!passageIds) throw new ServiceError('not_found', `No memory ${memory.id}.`, { memory_id: memory.id });
      ctx.indexes.forgetPassages(passageIds);
      return { status: 'forgotten' as const, id: memory.id };
    });
  },
});

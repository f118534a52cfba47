import { z } from 'zod';
import { ServiceError } from '../../errors';
import { defineOperation } from '../operation';
import * as S from '../schemas';

export const deleteRule = defineOperation({
  name: 'delete_rule',
  description: 'Remove a standing rule.',
  access: 'owner',
  output: S.RuleDeleted,
  input: z.object({ rule_id: z.string().min(1) }),
  async run(ctx, input) {
    if (!(await ctx.store.rules.get(ctx.caller.accountId, input.rule_id)))
      throw new ServiceError('not_found', `No rule ${input.rule_id}.`, { rule_id: input.rule_id });
    await ctx.store.rules.delete(ctx.caller.accountId, input.rule_id);
    return { status: 'deleted' as const, id: input.rule_id };
  },
});

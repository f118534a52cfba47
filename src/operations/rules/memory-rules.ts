import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toRule } from '../shapes';

export const memoryRules = defineOperation({
  name: 'memory_rules',
  description: "Read the person's standing rules for how their memory may be used by this credential. Follow them.",
  access: 'read',
  output: S.RuleList,
  input: z.object({}),
  async run(ctx) {
    const credentialId = ctx.caller.kind === 'owner' ? null : ctx.caller.grant.credentialId;
    return { rules: (await ctx.store.rules.list(ctx.caller.accountId, credentialId)).map(toRule) };
  },
});

import { z } from 'zod';
import { defineOperation } from './operation';
import * as S from './schemas';
import { toRule } from './shapes';

export const memoryRules = defineOperation({
  name: 'memory_rules',
  description: "Read the person's standing rules for how their memory may be used by this credential. Follow them.",
  access: 'read',
  output: S.RuleList,
  input: z.object({}),
  run(ctx) {
    const credentialId = ctx.caller.kind === 'owner' ? null : ctx.caller.grant.credentialId;
    return { rules: ctx.store.listRules(ctx.caller.accountId, credentialId).map(toRule) };
  },
});

import { z } from 'zod';
import { ServiceError } from '../../errors';
import { newId } from '../../ids';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS } from '../../limits';
import { toRule } from '../shapes';

export const addRule = defineOperation({
  name: 'add_rule',
  description: 'Add a standing rule for how the memory is used: for every credential, or for one.',
  access: 'owner',
  output: S.Rule,
  input: z.object({
    text: z.string().trim().min(1).max(LIMITS.ruleChars),
    credential_id: z.string().nullish().describe('Only this key; omitted: every credential.'),
  }),
  async run(ctx, input) {
    // `!= null`, not truthiness: an empty id names no key too, and must not reach the foreign key as "".
    if (input.credential_id != null && !(await ctx.store.credentials.get(ctx.caller.accountId, input.credential_id))) {
      throw new ServiceError('validation', `credential_id names no key of this account: ${input.credential_id}.`, {
        fields: ['credential_id'],
      });
    }
    const rule = {
      id: newId('rul'),
      accountId: ctx.caller.accountId,
      credentialId: input.credential_id ?? null,
      text: input.text,
      createdAt: ctx.clock.now(),
    };
    await ctx.store.rules.insert(rule);
    return toRule(rule);
  },
});

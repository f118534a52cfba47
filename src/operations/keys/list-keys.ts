import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { byState, toKey } from '../shapes';

export const listKeys = defineOperation({
  name: 'list_keys',
  description: 'List developer keys grouped as active, expired and revoked (revoked ones for 30 days).',
  access: 'owner',
  output: S.KeyList,
  input: z.object({}),
  async run(ctx) {
    const now = ctx.clock.now();
    return byState(await ctx.store.credentials.list(ctx.caller.accountId), now, (key) => toKey(key, now));
  },
});

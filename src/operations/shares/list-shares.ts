import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { byState, toShare } from '../shapes';

export const listShares = defineOperation({
  name: 'list_shares',
  description:
    'List the agent shares and workflows grouped as active, expired and revoked (revoked ones for 30 days), newest first.',
  access: 'owner',
  output: S.ShareList,
  input: z.object({}),
  async run(ctx) {
    const now = ctx.clock.now();
    return byState(await ctx.store.shares.list(ctx.caller.accountId), now, (share) => toShare(share, now));
  },
});

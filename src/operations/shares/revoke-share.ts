import { z } from 'zod';
import { ServiceError } from '../../errors';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toShare } from '../shapes';

export const revokeShare = defineOperation({
  name: 'revoke_share',
  description: 'Revoke an agent share or a workflow at once for every holder. Revoking twice changes nothing.',
  access: 'owner',
  output: S.Share,
  input: z.object({ key_id: z.string().min(1).describe('The id of the agent share or workflow.') }),
  async run(ctx, input) {
    const now = ctx.clock.now();
    if (!(await ctx.store.shares.revoke(ctx.caller.accountId, input.key_id, now))) {
      throw new ServiceError('not_found', `No share ${input.key_id}.`, { key_id: input.key_id });
    }
    const share = (await ctx.store.shares.getById(input.key_id))!;
    ctx.log.info('share revoked', { share_id: share.id, hint: share.hint });
    return toShare(share, now);
  },
});

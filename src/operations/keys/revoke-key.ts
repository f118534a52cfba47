import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findKey } from '../owner-records';
import { toKey } from '../shapes';

export const revokeKey = defineOperation({
  name: 'revoke_key',
  description: 'Revoke a key at once for every holder. Revoking twice changes nothing.',
  access: 'owner',
  output: S.Key,
  input: z.object({ key_id: z.string().min(1) }),
  async run(ctx, input) {
    const key = await findKey(ctx, input.key_id);
    const now = ctx.clock.now();
    if (key.revokedAt == null) {
      await ctx.store.credentials.update(ctx.caller.accountId, key.id, { revokedAt: now });
      ctx.log.info('key revoked', { key_id: key.id, hint: key.hint });
    }
    return toKey(await findKey(ctx, key.id), now);
  },
});

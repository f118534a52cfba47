import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findKey, requireChangeable, requireOwnContainers } from '../owner-records';
import { toKey } from '../shapes';

export const setKeyContainers = defineOperation({
  name: 'set_key_containers',
  description:
    "Replace a key's container list (an all-containers key becomes one with this list). The next call with the key reads the new reach.",
  access: 'owner',
  output: S.Key,
  input: z.object({ key_id: z.string().min(1), containers: z.array(z.string()).max(1000) }),
  async run(ctx, input) {
    const key = await findKey(ctx, input.key_id);
    requireChangeable(ctx, key);
    const ids = await requireOwnContainers(ctx, input.containers);
    // The list given is the reach from now on: left on, all_views would ignore it without a word.
    await ctx.store.transaction(async (tx) => {
      await tx.credentials.setContainers(ctx.caller.accountId, key.id, ids);
      if (key.allContainers) await tx.credentials.update(ctx.caller.accountId, key.id, { allContainers: false });
    });
    return toKey(await findKey(ctx, key.id), ctx.clock.now());
  },
});

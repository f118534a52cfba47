import { z } from 'zod';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findKey, requireChangeable } from '../owner-records';
import { level } from '../schemas';
import { toKey } from '../shapes';

export const updateKey = defineOperation({
  name: 'update_key',
  description: "Change a key's name, level, profile tick or all-containers reach in place; the token stays the same.",
  access: 'owner',
  output: S.Key,
  input: z.object({
    key_id: z.string().min(1),
    name: S.displayName.optional(),
    level: level.optional(),
    profile: z.boolean().optional(),
    all_views: z.boolean().optional(),
  }),
  async run(ctx, input) {
    const key = await findKey(ctx, input.key_id);
    requireChangeable(ctx, key);
    const patch = { name: input.name, level: input.level, profile: input.profile, allContainers: input.all_views };
    await ctx.store.credentials.update(
      ctx.caller.accountId,
      key.id,
      Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)),
    );
    return toKey(await findKey(ctx, key.id), ctx.clock.now());
  },
});

import { z } from 'zod';
import { defineOperation } from './operation';
import * as S from './schemas';
import { findKey, requireChangeable, requireOwnContainers } from './owner-records';
import { toKey } from './shapes';

export const setKeyContainers = defineOperation({
  name: 'set_key_containers',
  description: "Replace a key's container list (an all-containers key becomes one with this list). The next call with the key reads the new reach.",
  access: 'owner',
  output: S.Key,
  input: z.object({ key_id: z.string().min(1), containers: z.array(z.string()).max(1000) }),
  run(ctx, input) {
    const key = findKey(ctx, input.key_id);
    requireChangeable(ctx, key);
    const ids = requireOwnContainers(ctx, input.containers);
    // The list given is the reach from now on: left on, all_views would ignore it without a word.
    ctx.store.transaction(() => {
      ctx.store.setCredentialContainers(ctx.caller.accountId, key.id, ids);
      if (key.allContainers) ctx.store.updateCredential(ctx.caller.accountId, key.id, { allContainers: false });
    });
    return toKey(findKey(ctx, key.id), ctx.clock.now());
  },
});

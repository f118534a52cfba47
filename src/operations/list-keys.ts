import { z } from 'zod';
import { DAY_MS } from '../clock';
import { defineOperation } from './operation';
import * as S from './schemas';
import { keyState, toKey } from './shapes';

/** How long a revoked key stays listed. */
const REVOKED_LISTED_MS = 30 * DAY_MS;

export const listKeys = defineOperation({
  name: 'list_keys',
  description: 'List developer keys grouped as active, expired and revoked (revoked ones for 30 days).',
  access: 'owner',
  output: S.KeyList,
  input: z.object({}),
  run(ctx) {
    const now = ctx.clock.now();
    const groups = { active: [], expired: [], revoked: [] } as Record<'active' | 'expired' | 'revoked', ReturnType<typeof toKey>[]>;
    for (const key of ctx.store.listCredentials(ctx.caller.accountId)) {
      const state = keyState(key, now);
      if (state === 'revoked' && key.revokedAt! < now - REVOKED_LISTED_MS) continue;
      groups[state].push(toKey(key, now));
    }
    return groups;
  },
});

import { z } from 'zod';
import { KEY_PREFIX, mintSecret } from '../../auth/credentials';
import { DAY_MS } from '../../clock';
import { ServiceError } from '../../errors';
import type { Credential } from '../../storage/store';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { requireOwnContainers } from '../owner-records';
import { level } from '../schemas';
import { toKey } from '../shapes';

export const createKey = defineOperation({
  name: 'create_key',
  description: 'Mint a developer key. The key is returned this once; afterwards only its hint.',
  access: 'owner',
  output: S.MintedKey,
  input: z.object({
    name: S.displayName,
    level,
    containers: z.array(z.string()).max(1000).optional(),
    all_views: z.boolean().optional().describe('Reach every container, including ones made later.'),
    profile: z.boolean().optional(),
    expires_in_days: S.expiresInDays,
    replaces: z.string().nullish().describe('The key this one rotates; records lineage only.'),
  }),
  async run(ctx, input) {
    if (input.all_views && input.containers?.length) {
      throw new ServiceError('validation', 'Give a container list or all_views, not both.', {
        fields: ['containers', 'all_views'],
      });
    }
    const containerIds = await requireOwnContainers(ctx, input.containers ?? []);
    // `!= null`, not truthiness: an empty id names no key either, and must not be recorded as lineage.
    if (input.replaces != null && !(await ctx.store.credentials.get(ctx.caller.accountId, input.replaces))) {
      throw new ServiceError('validation', `replaces names no key of this account: ${input.replaces}.`, {
        fields: ['replaces'],
      });
    }
    const now = ctx.clock.now();
    const secret = mintSecret(KEY_PREFIX);
    const key: Credential = {
      id: secret.id,
      accountId: ctx.caller.accountId,
      kind: 'developer_key',
      name: input.name,
      secretHash: secret.hash,
      hint: secret.hint,
      level: input.level,
      allContainers: input.all_views ?? false,
      profile: input.profile ?? false,
      expiresInDays: input.expires_in_days ?? null,
      expiresAt: input.expires_in_days ? now + input.expires_in_days * DAY_MS : null,
      revokedAt: null,
      replaces: input.replaces ?? null,
      createdAt: now,
      lastUsedAt: null,
      containerIds,
    };
    await ctx.store.credentials.insert(key);
    ctx.log.info('key minted', { key_id: key.id, hint: key.hint, level: key.level });
    return { ...toKey(key, now), key: secret.token };
  },
});

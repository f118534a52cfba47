import { z } from 'zod';
import { SHARE_PREFIX, mintSecret } from '../../auth/credentials';
import { DAY_MS } from '../../clock';
import { ServiceError } from '../../errors';
import type { Share } from '../../storage/store';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { requireOwnContainers } from '../owner-records';
import { LIMITS } from '../../limits';
import { toShare } from '../shapes';

export const createShare = defineOperation({
  name: 'create_share',
  description:
    'Share an agent (a token holding ask_agent) or expose a workflow (a token holding workflow_invoke) over chosen containers, for good or for 1 to 3650 days. The token is returned this once.',
  access: 'owner',
  output: S.MintedShare,
  input: z.object({
    kind: z.enum(['agent_share', 'workflow']),
    name: S.displayName,
    containers: z.array(z.string()).min(1).max(1000),
    instruction: z
      .string()
      .max(LIMITS.ruleChars)
      .nullish()
      .describe("Workflows only: what the workflow does, in the owner's words."),
    expires_in_days: S.expiresInDays,
  }),
  async run(ctx, input) {
    const instruction = input.instruction?.trim() || null;
    if (input.kind === 'workflow' && !instruction) {
      throw new ServiceError('validation', 'A workflow needs an instruction.', { fields: ['instruction'] });
    }
    if (input.kind === 'agent_share' && instruction) {
      throw new ServiceError('validation', 'An agent share takes no instruction.', { fields: ['instruction'] });
    }
    const containerIds = await requireOwnContainers(ctx, input.containers);
    const now = ctx.clock.now();
    const secret = mintSecret(SHARE_PREFIX);
    const share: Share = {
      id: secret.id,
      accountId: ctx.caller.accountId,
      kind: input.kind,
      name: input.name,
      instruction,
      secretHash: secret.hash,
      hint: secret.hint,
      createdAt: now,
      expiresAt: input.expires_in_days ? now + input.expires_in_days * DAY_MS : null,
      revokedAt: null,
      lastUsedAt: null,
      containerIds,
    };
    await ctx.store.shares.insert(share);
    ctx.log.info('share minted', { share_id: share.id, kind: share.kind, hint: share.hint });
    return { ...toShare(share, now), token: secret.token };
  },
});

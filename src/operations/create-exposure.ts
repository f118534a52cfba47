import { z } from 'zod';
import { EXPOSURE_PREFIX, mintSecret } from '../auth/credentials';
import { DAY_MS } from '../clock';
import { ServiceError } from '../errors';
import type { Exposure } from '../storage/store';
import { defineOperation } from './operation';
import * as S from './schemas';
import { requireOwnContainers } from './owner-records';
import { LIMITS } from './schemas';
import { toExposure } from './shapes';

export const createExposure = defineOperation({
  name: 'create_exposure',
  description: 'Share an agent (a token holding ask_agent) or expose a workflow (a token holding workflow_invoke) over chosen containers, for good or for 1 to 3650 days. The token is returned this once.',
  access: 'owner',
  output: S.MintedExposure,
  input: z.object({
    kind: z.enum(['agent_share', 'workflow']),
    name: S.displayName,
    containers: z.array(z.string()).min(1).max(1000),
    instruction: z.string().max(LIMITS.ruleChars).nullish().describe('Workflows only: what the workflow does, in the owner\'s words.'),
    expires_in_days: S.expiresInDays,
  }),
  run(ctx, input) {
    const instruction = input.instruction?.trim() || null;
    if (input.kind === 'workflow' && !instruction) {
      throw new ServiceError('validation', 'A workflow needs an instruction.', { fields: ['instruction'] });
    }
    if (input.kind === 'agent_share' && instruction) {
      throw new ServiceError('validation', 'An agent share takes no instruction.', { fields: ['instruction'] });
    }
    const containerIds = requireOwnContainers(ctx, input.containers);
    const now = ctx.clock.now();
    const secret = mintSecret(EXPOSURE_PREFIX);
    const exposure: Exposure = {
      id: secret.id, accountId: ctx.caller.accountId, kind: input.kind, name: input.name, instruction, secretHash: secret.hash,
      hint: secret.hint, createdAt: now, expiresAt: input.expires_in_days ? now + input.expires_in_days * DAY_MS : null,
      revokedAt: null, lastUsedAt: null, containerIds,
    };
    ctx.store.insertExposure(exposure);
    ctx.log.info('exposure minted', { exposure_id: exposure.id, kind: exposure.kind, hint: exposure.hint });
    return { ...toExposure(exposure, now), token: secret.token };
  },
});

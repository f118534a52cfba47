import { z } from 'zod';
import { ServiceError } from '../errors';
import { defineOperation } from './operation';
import * as S from './schemas';
import { toExposure } from './shapes';

export const revokeExposure = defineOperation({
  name: 'revoke_exposure',
  description: 'Revoke an agent share or a workflow at once for every holder. Revoking twice changes nothing.',
  access: 'owner',
  output: S.Exposure,
  input: z.object({ key_id: z.string().min(1).describe('The id of the agent share or workflow.') }),
  run(ctx, input) {
    const now = ctx.clock.now();
    if (!ctx.store.revokeExposure(ctx.caller.accountId, input.key_id, now)) {
      throw new ServiceError('not_found', `No exposure ${input.key_id}.`, { key_id: input.key_id });
    }
    const exposure = ctx.store.getExposureById(input.key_id)!;
    ctx.log.info('exposure revoked', { exposure_id: exposure.id, hint: exposure.hint });
    return toExposure(exposure, now);
  },
});

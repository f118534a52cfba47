import { z } from 'zod';
import { defineOperation } from './operation';
import * as S from './schemas';
import { byState, toExposure } from './shapes';

export const listExposures = defineOperation({
  name: 'list_exposures',
  description: 'List the agent shares and workflows grouped as active, expired and revoked (revoked ones for 30 days), newest first.',
  access: 'owner',
  output: S.ExposureList,
  input: z.object({}),
  run(ctx) {
    const now = ctx.clock.now();
    return byState(ctx.store.listExposures(ctx.caller.accountId), now, (exposure) => toExposure(exposure, now));
  },
});

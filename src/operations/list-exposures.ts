import { z } from 'zod';
import { defineOperation } from './operation';
import * as S from './schemas';
import { toExposure } from './shapes';

export const listExposures = defineOperation({
  name: 'list_exposures',
  description: 'List the agent shares and workflows, newest first.',
  access: 'owner',
  output: S.ExposureList,
  input: z.object({}),
  run(ctx) {
    return { exposures: ctx.store.listExposures(ctx.caller.accountId).map(toExposure) };
  },
});

import { z } from 'zod';
import { ServiceError, UniqueViolation } from '../../errors';
import { containerFields } from './create-container';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findContainer } from '../owner-records';
import { toContainer } from '../shapes';

export const updateContainer = defineOperation({
  name: 'update_container',
  description: 'Rename a container, change its description, or whether learning promotes its facts to the profile.',
  access: 'owner',
  output: S.Container,
  input: z.object({
    container_id: z.string().min(1),
    name: containerFields.name.optional(),
    description: containerFields.description.optional(),
    learns_into_profile: containerFields.learns_into_profile.optional(),
  }),
  async run(ctx, input) {
    const { id } = await findContainer(ctx, input.container_id);
    try {
      await ctx.store.containers.update(ctx.caller.accountId, id, {
        name: input.name,
        description: input.description,
        learnsIntoProfile: input.learns_into_profile,
        updatedAt: ctx.clock.now(),
      });
    } catch (err) {
      if (err instanceof UniqueViolation)
        throw new ServiceError('conflict', `A container named "${input.name}" already exists.`, { fields: ['name'] });
      throw err;
    }
    return toContainer(await findContainer(ctx, id));
  },
});

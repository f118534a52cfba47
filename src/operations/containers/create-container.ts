import { z } from 'zod';
import { ServiceError, UniqueViolation } from '../../errors';
import { newId } from '../../ids';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS } from '../../limits';
import { toContainer } from '../shapes';

export const containerFields = {
  name: S.displayName,
  description: z.string().max(LIMITS.descriptionChars),
  learns_into_profile: z
    .boolean()
    .describe(
      'Whether learning may promote facts drawn from its documents to the profile, which every key with the profile tick reads whatever its reach. Default true.',
    ),
};

export const createContainer = defineOperation({
  name: 'create_container',
  description: 'Make a container (a topic of the memory).',
  access: 'owner',
  output: S.Container,
  input: z.object({
    name: containerFields.name,
    description: containerFields.description.optional(),
    learns_into_profile: containerFields.learns_into_profile.optional(),
  }),
  async run(ctx, input) {
    const now = ctx.clock.now();
    const container = {
      id: newId('ctr'),
      accountId: ctx.caller.accountId,
      name: input.name,
      description: input.description ?? '',
      createdAt: now,
      updatedAt: now,
      learnsIntoProfile: input.learns_into_profile ?? true,
    };
    try {
      await ctx.store.containers.insert(container);
    } catch (err) {
      if (err instanceof UniqueViolation)
        throw new ServiceError('conflict', `A container named "${input.name}" already exists.`, { fields: ['name'] });
      throw err;
    }
    return toContainer(container);
  },
});

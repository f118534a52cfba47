import { z } from 'zod';
import { containerLoss, forgetTarget, keptNote, planFor } from '../forgetting/forgetting';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findContainer } from '../owner-records';
import { confirmParam } from '../schemas';
import { confirmation } from '../shapes';

export const deleteContainer = defineOperation({
  name: 'delete_container',
  description:
    'Delete a container with every document, passage and fact in it, and the facts learned from its documents (those the owner confirmed or edited are kept).',
  access: 'owner',
  output: S.DeleteContainerResult,
  input: z.object({ container_id: z.string().min(1), confirm: confirmParam }),
  async run(ctx, input) {
    const container = await findContainer(ctx, input.container_id);
    const target = { containerId: container.id };
    if (input.confirm !== true) {
      const plan = await planFor(ctx, target);
      return confirmation(
        'delete_container',
        `Deleting removes ${containerLoss(`"${container.name}"`, plan)}${keptNote(plan, 'you')}. Call again with confirm=true to go ahead.`,
      );
    }
    return { status: 'deleted' as const, id: container.id, ...(await forgetTarget(ctx, target)) };
  },
});

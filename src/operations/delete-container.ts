import { z } from 'zod';
import { defineOperation } from './operation';
import * as S from './schemas';
import { findContainer } from './owner-records';
import { confirmParam } from './schemas';
import { confirmation } from './shapes';

export const deleteContainer = defineOperation({
  name: 'delete_container',
  description: 'Delete a container with every document, passage and fact in it.',
  access: 'owner',
  output: S.DeleteContainerResult,
  input: z.object({ container_id: z.string().min(1), confirm: confirmParam }),
  run(ctx, input) {
    const container = findContainer(ctx, input.container_id);
    if (input.confirm !== true) {
      return confirmation('delete_container', `Deleting "${container.name}" removes every document and fact in it. Call again with confirm=true to go ahead.`);
    }
    ctx.store.deleteContainer(ctx.caller.accountId, container.id);
    return { status: 'deleted' as const, id: container.id };
  },
});

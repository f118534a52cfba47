import { z } from 'zod';
import { malformed } from '../../errors';
import type { ForgetTarget } from '../../storage/store';
import { findDocument } from '../find-in-reach';
import { forgetTarget } from './forgetting';
import { defineOperation } from '../operation';
import { findContainer } from '../owner-records';
import * as S from '../schemas';

/**
 * The owner's confirmed delete, as the confirmation page showed it (forgetting_plan): a document
 * or a container with everything learned from it, and the reviewed facts the owner ticked to forget
 * too, all in one transaction. A ticked id that is not among the facts the delete would keep is
 * ignored: the page offered no such choice.
 */
export const deleteWithFacts = defineOperation({
  name: 'delete_with_facts',
  description:
    'Delete a document or a container with everything learned from it, and the reviewed facts named in forget_facts too, in one transaction.',
  access: 'owner',
  output: S.Deleted,
  input: z.object({
    document_id: z.string().min(1).max(100).nullish(),
    container_id: z.string().min(1).max(100).nullish(),
    forget_facts: z
      .array(z.string().max(100))
      .max(10_000)
      .default([])
      .describe('Reviewed facts the delete would keep, to forget as well.'),
  }),
  async run(ctx, input) {
    if (!input.document_id === !input.container_id)
      throw malformed('Give document_id or container_id, not both.', { fields: ['document_id', 'container_id'] });
    const id = input.document_id
      ? (await findDocument(ctx, input.document_id)).id
      : (await findContainer(ctx, input.container_id!)).id;
    const target: ForgetTarget = input.document_id ? { documentId: id } : { containerId: id };
    return { status: 'deleted' as const, id, ...(await forgetTarget(ctx, target, input.forget_facts)) };
  },
});

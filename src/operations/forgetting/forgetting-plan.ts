import { z } from 'zod';
import { requireReach } from '../../auth/access';
import { malformed } from '../../errors';
import { findDocument } from '../find-in-reach';
import { containerLoss, documentLoss, planFor } from './forgetting';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toFact } from '../shapes';

/**
 * What deleting a document or a container would take, said before the owner confirms: the loss in
 * words, and the facts it would keep (confirmed or edited since learned), which the owner may tick
 * to forget too.
 */
export const forgettingPlan = defineOperation({
  name: 'forgetting_plan',
  description: 'What deleting a document or a container would forget, in words, and the reviewed facts it would keep.',
  access: 'owner',
  output: z.object({ loss: z.string(), kept: z.array(S.Fact) }),
  input: z.object({
    document_id: z.string().min(1).max(100).nullish(),
    container_id: z.string().min(1).max(100).nullish(),
  }),
  async run(ctx, input) {
    if (!input.document_id === !input.container_id)
      throw malformed('Give document_id or container_id, not both.', { fields: ['document_id', 'container_id'] });
    if (input.document_id) {
      const doc = await findDocument(ctx, input.document_id);
      const plan = await planFor(ctx, { documentId: doc.id });
      return {
        loss: documentLoss(doc.title ? `“${doc.title}”` : (doc.url ?? doc.id), plan),
        kept: plan.kept.map(toFact),
      };
    }
    const container = await requireReach(ctx, input.container_id!);
    const plan = await planFor(ctx, { containerId: container.id });
    return { loss: containerLoss(`“${container.name}”`, plan), kept: plan.kept.map(toFact) };
  },
});

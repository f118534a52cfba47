import { z } from 'zod';
import { findDocument } from '../find-in-reach';
import { documentLoss, forgetTarget, keptNote, planFor } from '../forgetting/forgetting';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { confirmParam } from '../schemas';
import { confirmation } from '../shapes';

export const deleteDocument = defineOperation({
  name: 'delete_document',
  description:
    'Delete a document everywhere, with its passages and the facts learned from it (facts the person confirmed or edited are kept). ' +
    'Without confirm=true a confirmation request saying what will go is returned instead: relay it to the person.',
  access: 'manage',
  output: S.DeleteDocumentResult,
  accessed: (r) => (r.status === 'deleted' ? [{ action: 'removed', kind: 'document', id: r.id }] : []),
  input: z.object({ document_id: z.string().min(1).max(100), confirm: confirmParam }),
  async run(ctx, input) {
    const doc = await findDocument(ctx, input.document_id);
    const target = { documentId: doc.id };
    if (input.confirm !== true) {
      const what = doc.title ? `"${doc.title}"` : doc.id;
      const plan = await planFor(ctx, target);
      return confirmation(
        'delete_document',
        `Ask the person to confirm deleting ${documentLoss(what, plan)}${keptNote(plan, 'the person')}; then call again with confirm=true.`,
      );
    }
    // The contract's door (docs/protocol.md) keeps reviewed facts: a key forgets them only one by one, with forget_memory.
    return { status: 'deleted' as const, id: doc.id, ...(await forgetTarget(ctx, target)) };
  },
});

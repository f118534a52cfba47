import { z } from 'zod';
import { findDocument } from './find-in-reach';
import { defineOperation } from './operation';
import * as S from './schemas';
import { confirmParam } from './schemas';
import { confirmation } from './shapes';

export const deleteDocument = defineOperation({
  name: 'delete_document',
  description: 'Delete a document everywhere, with its passages. Without confirm=true a confirmation request is returned instead: relay it to the person.',
  access: 'manage',
  output: S.DeleteDocumentResult,
  input: z.object({ document_id: z.string().min(1).max(100), confirm: confirmParam }),
  run(ctx, input) {
    const doc = findDocument(ctx, input.document_id);
    if (input.confirm !== true) {
      const what = doc.title ? `"${doc.title}"` : doc.id;
      return confirmation('delete_document', `Ask the person to confirm deleting the document ${what}; then call again with confirm=true.`);
    }
    ctx.store.deleteDocument(ctx.caller.accountId, doc.id);
    return { status: 'deleted' as const, id: doc.id };
  },
});

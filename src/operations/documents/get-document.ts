import { z } from 'zod';
import { findDocument } from '../find-in-reach';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toDocument } from '../shapes';

export const getDocument = defineOperation({
  name: 'get_document',
  description: 'Get one document with its content and whether it has been learned.',
  access: 'read',
  output: S.Document,
  accessed: (d) => [{ action: 'returned', kind: 'document', id: d.id, container: d.container }],
  input: z.object({ document_id: z.string().min(1).max(100) }),
  run: async (ctx, input) => toDocument(await findDocument(ctx, input.document_id), true),
});

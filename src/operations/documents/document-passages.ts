import { z } from 'zod';
import { findDocument } from '../find-in-reach';
import { defineOperation } from '../operation';

/** A document's passages as learned, in order: what search matches (the owner's document page). */
export const documentPassages = defineOperation({
  name: 'document_passages',
  description: 'The passages a document was split into when learned, in order.',
  access: 'owner',
  output: z.object({
    passages: z.array(z.object({ position: z.number().int(), title: z.string().nullable(), content: z.string() })),
  }),
  input: z.object({ document_id: z.string().min(1).max(100) }),
  async run(ctx, input) {
    const doc = await findDocument(ctx, input.document_id);
    return { passages: await ctx.store.passages.list(ctx.caller.accountId, doc.id) };
  },
});

import { z } from 'zod';
import { containersInReach, requireReach } from '../../auth/access';
import { malformed } from '../../errors';
import type { DocumentPosition } from '../../storage/store';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toDocument } from '../shapes';

export const listDocuments = defineOperation({
  name: 'list_documents',
  description:
    'List documents in reach, newest first, with their learning state. Content is left out; get a document for it.',
  access: 'read',
  output: S.DocumentList,
  accessed: (result) =>
    result.documents.map((d) => ({ action: 'returned', kind: 'document', id: d.id, container: d.container })),
  input: z.object({
    container: z.string().max(100).nullish().describe('Only this container; omitted: every container in reach.'),
    limit: z.number().int().min(1).max(200).nullish().describe('Page size, 1 to 200; default 50.'),
    cursor: z.string().max(200).nullish().describe('next_cursor of the previous page.'),
  }),
  async run(ctx, input) {
    const ids = input.container
      ? [(await requireReach(ctx, input.container)).id]
      : (await containersInReach(ctx)).map((c) => c.id);
    const limit = input.limit ?? 50;
    const page = await ctx.store.documents.list(
      ctx.caller.accountId,
      ids,
      limit,
      input.cursor ? decodeCursor(input.cursor) : null,
    );
    return {
      documents: page.documents.map((d) => toDocument(d, false)),
      next_cursor: page.next ? encodeCursor(page.next) : null,
    };
  },
});

const encodeCursor = (p: DocumentPosition) => Buffer.from(`${p.createdAt}:${p.seq}`).toString('base64url');

function decodeCursor(cursor: string): DocumentPosition {
  const match = /^(-?\d{1,15}):(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw malformed('cursor is not one this server gave.', { fields: ['cursor'] });
  return { createdAt: Number(match[1]), seq: Number(match[2]) };
}

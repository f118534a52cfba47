import { z } from 'zod';
import { requireReach } from '../../auth/access';
import { malformed } from '../../errors';
import type { FactPosition } from '../../storage/store';
import { listDocuments } from '../documents/list-documents';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toContainer, toFact } from '../shapes';

/** How many of a container's facts its page shows at a time, most recently changed first. */
const FACTS_SHOWN = 200;
/** How much of a document's text its row shows when it has no title. */
const OPENING_CHARS = 120;

/**
 * The owner's page of one container: a page of its documents with their size and first words, a
 * page of its facts, and how many of each it holds.
 */
export const browseContainer = defineOperation({
  name: 'browse_container',
  description:
    "One container for the owner's page: a page of its documents (each with its size and opening words), a page of its most recently changed facts, and how many of each it holds.",
  access: 'owner',
  output: z.object({
    container: S.Container,
    documents: z.array(S.Document.extend({ bytes: z.number().int(), opening: z.string() })),
    document_count: z.number().int(),
    next_cursor: z.string().nullable(),
    facts: z.array(S.Fact),
    fact_count: z.number().int(),
    next_facts_cursor: z.string().nullable(),
  }),
  input: z.object({
    container_id: z.string().min(1).max(100),
    cursor: z.string().max(200).nullish(),
    facts_cursor: z.string().max(200).nullish().describe('next_facts_cursor of the previous page of facts.'),
  }),
  async run(ctx, input) {
    const container = await requireReach(ctx, input.container_id);
    const page = await listDocuments.run(ctx, { container: container.id, cursor: input.cursor });
    const { accountId } = ctx.caller;
    const described = await ctx.store.documents.describe(
      accountId,
      page.documents.map((d) => d.id),
      OPENING_CHARS,
    );
    const facts = await ctx.store.facts.listRecent(accountId, [container.id], FACTS_SHOWN + 1, {
      after: input.facts_cursor ? decodeFactsCursor(input.facts_cursor) : null,
    });
    const last = facts.length > FACTS_SHOWN ? facts[FACTS_SHOWN - 1]! : null;
    return {
      container: toContainer(container),
      documents: page.documents.map((d) => ({ ...d, ...(described.get(d.id) ?? { bytes: 0, opening: '' }) })),
      document_count: await ctx.store.documents.count(accountId, [container.id]),
      next_cursor: page.next_cursor,
      facts: facts.slice(0, FACTS_SHOWN).map(toFact),
      fact_count: await ctx.store.facts.count(accountId, [container.id]),
      next_facts_cursor: last && encodeFactsCursor({ updatedAt: last.updatedAt, id: last.id }),
    };
  },
});

const encodeFactsCursor = (p: FactPosition) => Buffer.from(`${p.updatedAt}:${p.id}`).toString('base64url');

function decodeFactsCursor(cursor: string): FactPosition {
  const match = /^(-?\d{1,15}):([\w-]{1,100})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw malformed('facts_cursor is not one this server gave.', { fields: ['facts_cursor'] });
  return { updatedAt: Number(match[1]), id: match[2]! };
}

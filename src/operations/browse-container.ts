import { z } from 'zod';
import { requireReach } from '../auth/access';
import { listDocuments } from './list-documents';
import { defineOperation } from './operation';
import * as S from './schemas';
import { toContainer, toFact } from './shapes';

/** How many of a container's facts its page shows, most recently changed first. */
const FACTS_SHOWN = 200;
/** How much of a document's text its row shows when it has no title. */
const OPENING_CHARS = 120;

/** The owner's page of one container: a page of its documents with their size and first words, and its recent facts. */
export const browseContainer = defineOperation({
  name: 'browse_container',
  description:
    "One container for the owner's page: a page of its documents (each with its size and opening words) and its most recently changed facts.",
  access: 'owner',
  output: z.object({
    container: S.Container,
    documents: z.array(S.Document.extend({ bytes: z.number().int(), opening: z.string() })),
    next_cursor: z.string().nullable(),
    facts: z.array(S.Fact),
  }),
  input: z.object({ container_id: z.string().min(1).max(100), cursor: z.string().max(200).nullish() }),
  async run(ctx, input) {
    const container = await requireReach(ctx, input.container_id);
    const page = await listDocuments.run(ctx, { container: container.id, cursor: input.cursor });
    const { accountId } = ctx.caller;
    const described = await ctx.store.documents.describe(
      accountId,
      page.documents.map((d) => d.id),
      OPENING_CHARS,
    );
    return {
      container: toContainer(container),
      documents: page.documents.map((d) => ({ ...d, ...(described.get(d.id) ?? { bytes: 0, opening: '' }) })),
      next_cursor: page.next_cursor,
      facts: (await ctx.store.facts.listRecent(accountId, [container.id], FACTS_SHOWN)).map(toFact),
    };
  },
});

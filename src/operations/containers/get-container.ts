import { z } from 'zod';
import { requireReach } from '../../auth/access';
import { factsReturned } from '../calls/access-items';
import { listDocuments } from '../documents/list-documents';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toContainer, toFact } from '../shapes';

/** How many of a container's most recent documents, and of its most recently changed facts, it shows. */
const RECENT_IN_CONTAINER = 20;

/** One container in reach as context for a model: what it is, its newest documents and its latest facts. */
export const getContainer = defineOperation({
  name: 'get_container',
  description: `One container in reach: its name and description, its ${RECENT_IN_CONTAINER} newest documents (without their content) and its ${RECENT_IN_CONTAINER} most recently changed facts.`,
  access: 'read',
  output: S.ContainerOverview,
  accessed: (result) => [
    { action: 'returned', kind: 'container', id: result.container.id },
    ...result.documents.map((d) => ({
      action: 'returned' as const,
      kind: 'document' as const,
      id: d.id,
      container: d.container,
    })),
    ...factsReturned(result.facts),
  ],
  input: z.object({ container_id: z.string().min(1).max(100) }),
  async run(ctx, input) {
    const container = await requireReach(ctx, input.container_id);
    const { documents } = await listDocuments.run(ctx, { container: container.id, limit: RECENT_IN_CONTAINER });
    const facts = await ctx.store.facts.listRecent(ctx.caller.accountId, [container.id], RECENT_IN_CONTAINER);
    return { container: toContainer(container), documents, facts: facts.map(toFact) };
  },
});

import { z } from 'zod';
import { containersInReach, resolveContainer } from '../../auth/access';
import { ServiceError } from '../../errors';
import { hitsReturned } from '../calls/access-items';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { toSearchResponse } from '../shapes';
import { LIMITS, text } from '../../limits';
import { containerParam } from '../schemas';

export const searchMemories = defineOperation({
  name: 'search_memories',
  description:
    'Search the memory for passages relevant to a natural-language query. Returns passages, most relevant first; this is retrieval, not an answer.',
  access: 'read',
  unlimited: true,
  output: S.SearchResponse,
  accessed: (result) => hitsReturned(result.results),
  input: z.object({
    q: text(LIMITS.queryBytes).describe('What to look for, in natural language.'),
    container: containerParam,
    limit: z.number().int().min(1).max(100).nullish().describe('How many passages, 1 to 100; default 10.'),
  }),
  async run(ctx, input) {
    if (!input.q.trim()) throw new ServiceError('validation', 'q must not be empty.', { fields: ['q'] });
    const targets =
      input.container === '*' ? await containersInReach(ctx) : [await resolveContainer(ctx, input.container)];
    return toSearchResponse(
      await ctx.search.search(ctx.caller.accountId, targets, input.q, input.limit ?? 10, ctx.traceId),
    );
  },
});

import { z } from 'zod';
import { containersInReach } from '../auth/access';
import { factsReturned, hitsReturned } from './access-items';
import { defineOperation } from './operation';
import * as S from './schemas';
import { LIMITS, text } from '../limits';
import { toFact, toSearchHit } from './shapes';

/** How many recently changed facts the profile's `dynamic` side carries. */
export const DYNAMIC_FACTS = 20;

export const getProfile = defineOperation({
  name: 'get_profile',
  description:
    "Read the person's profile: standing (static) facts, recently changed (dynamic) facts, and with q the passages relevant to that topic.",
  access: 'read',
  profile: true,
  output: S.Profile,
  accessed: (result) => [
    ...factsReturned([...result.static, ...result.dynamic]),
    ...hitsReturned(result.results ?? []),
  ],
  input: z.object({ q: text(LIMITS.queryBytes).nullish().describe('A topic; adds relevant passages as results.') }),
  async run(ctx, input) {
    const { accountId } = ctx.caller;
    const reach = await containersInReach(ctx);
    const profile = {
      static: (await ctx.store.facts.listStatic(accountId)).map(toFact),
      dynamic: (
        await ctx.store.facts.listRecent(
          accountId,
          reach.map((c) => c.id),
          DYNAMIC_FACTS,
        )
      ).map(toFact),
    };
    if (!input.q?.trim()) return profile;
    const { hits } = await ctx.search.search(accountId, reach, input.q, 10, ctx.traceId);
    return { ...profile, results: hits.map(toSearchHit) };
  },
});

import { z } from 'zod';
import { containersInReach } from '../../auth/access';
import { FORMAT_NAMES } from '../../importers/format-labels';
import type { Fact } from '../../storage/store';
import { factsReturned, hitsReturned } from '../calls/access-items';
import { type Context, defineOperation } from '../operation';
import * as S from '../schemas';
import { LIMITS, text } from '../../limits';
import { toFact, toSearchHit } from '../shapes';

/** How many recently changed facts the profile's `dynamic` side carries. */
const DYNAMIC_FACTS = 20;

/** Other products' formats: what an import from them brings is the person's old memory. */
const OTHER_PRODUCTS = FORMAT_NAMES.filter((f) => f !== 'engram');

/**
 * The profile's dynamic facts in these containers: the most recently changed of what the person
 * said or saved (docs/decisions.md, "The profile's dynamic facts"). What an import from another
 * product brought (its facts, and those learned from its conversations and notes) stays in its
 * container and is left out; an Engram export's facts keep their own times and count as they did.
 */
export function dynamicFacts(ctx: Context, containerIds: string[]): Promise<Fact[]> {
  return ctx.store.facts.listRecent(ctx.caller.accountId, containerIds, DYNAMIC_FACTS, {
    exceptImportedFrom: OTHER_PRODUCTS,
  });
}

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
        await dynamicFacts(
          ctx,
          reach.map((c) => c.id),
        )
      ).map(toFact),
    };
    if (!input.q?.trim()) return profile;
    const { hits } = await ctx.search.search(accountId, reach, input.q, 10, ctx.traceId);
    return { ...profile, results: hits.map(toSearchHit) };
  },
});

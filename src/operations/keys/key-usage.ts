import { z } from 'zod';
import { DAY_MS, iso } from '../../clock';
import { defineOperation } from '../operation';
import * as S from '../schemas';
import { findKey } from '../owner-records';

/** How far back the per-day and per-tool figures reach. */
const USAGE_WINDOW_DAYS = 30;

export const keyUsage = defineOperation({
  name: 'key_usage',
  description: "A key's usage: calls per day, refusals, calls per tool, and the last twenty calls.",
  access: 'owner',
  output: S.Usage,
  input: z.object({ key_id: z.string().min(1) }),
  async run(ctx, input) {
    const key = await findKey(ctx, input.key_id);
    await ctx.usage.flush();
    const s = await ctx.store.usage.summarize(
      ctx.caller.accountId,
      key.id,
      ctx.clock.now() - USAGE_WINDOW_DAYS * DAY_MS,
    );
    return {
      key_id: key.id,
      per_day: s.perDay,
      refused: s.refused,
      per_tool: s.perTool,
      recent: s.recent.map((r) => ({ ...r, at: iso(r.at)! })),
    };
  },
});

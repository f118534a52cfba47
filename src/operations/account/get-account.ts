import { z } from 'zod';
import { iso } from '../../clock';
import { ServiceError } from '../../errors';
import { defineOperation } from '../operation';

/** The signed-in owner's account, as the pages' header and the consent screen name it. */
export const getAccount = defineOperation({
  name: 'get_account',
  description: "The owner's account: its id, email and when it was made.",
  access: 'owner',
  output: z.object({ id: z.string(), email: z.string(), created_at: z.string().describe('ISO 8601, UTC') }),
  input: z.object({}),
  async run(ctx) {
    const account = await ctx.store.accounts.get(ctx.caller.accountId);
    // A session outlives no account: only a store changed under the server lacks it.
    if (!account) throw new ServiceError('not_found', 'The account is gone.');
    return { id: account.id, email: account.email, created_at: iso(account.createdAt)! };
  },
});

import { z } from 'zod';
import { revokeApp } from '../../auth/oauth-codes';
import { ServiceError } from '../../errors';
import { defineOperation } from '../operation';

export const disconnectApp = defineOperation({
  name: 'disconnect_app',
  description:
    'Disconnect an AI app: revokes every consent token it holds at once. It must authorize again, and be approved again, to come back.',
  access: 'owner',
  output: z
    .object({
      status: z.literal('disconnected'),
      client_id: z.string(),
      revoked: z
        .number()
        .int()
        .describe('How many consent tokens were revoked now (0 when it was already disconnected).'),
    })
    .meta({ id: 'AppDisconnected' }),
  input: z.object({ client_id: z.string().min(1).max(2000) }),
  async run(ctx, input) {
    const held = (await ctx.store.credentials.list(ctx.caller.accountId, 'consent_token')).some(
      (t) => t.clientId === input.client_id,
    );
    if (!held)
      throw new ServiceError('not_found', `No app ${input.client_id} is connected.`, { client_id: input.client_id });
    const revoked = await revokeApp(ctx.store, ctx.clock, ctx.caller.accountId, input.client_id);
    if (revoked) ctx.log.info('app disconnected', { client_id: input.client_id, revoked });
    return { status: 'disconnected' as const, client_id: input.client_id, revoked };
  },
});

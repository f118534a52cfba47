import { z } from 'zod';
import { iso } from '../../clock';
import { defineOperation } from '../operation';
import { keyState } from '../shapes';

const ConsentToken = z.object({
  id: z.string(),
  client_id: z.string().nullable().describe('The app it was issued to.'),
  app: z.string().describe("The app's name: as it registered, or as the token was issued."),
  state: z.enum(['active', 'expired', 'revoked']),
  created_at: z.string().describe('ISO 8601, UTC: when the owner approved it.'),
});

/**
 * Every consent token the owner's apps were issued, one per approval, with its app's name: what the
 * owner can search as ("see as") and whose activity they can read. Connected apps
 * (list_connected_apps) merges an app's live tokens into one.
 */
export const listConsentTokens = defineOperation({
  name: 'list_consent_tokens',
  description:
    "List the consent tokens issued to the owner's apps, one per approval, newest first, with each app's name and where the token stands.",
  access: 'owner',
  output: z.object({ tokens: z.array(ConsentToken) }),
  input: z.object({}),
  async run(ctx) {
    const now = ctx.clock.now();
    const names = new Map<string, string | null>();
    const tokens = [];
    for (const t of await ctx.store.credentials.list(ctx.caller.accountId, 'consent_token')) {
      if (t.clientId && !names.has(t.clientId))
        names.set(t.clientId, (await ctx.store.oauth.getClient(t.clientId))?.name ?? null);
      tokens.push({
        id: t.id,
        client_id: t.clientId ?? null,
        app: (t.clientId && names.get(t.clientId)) || t.name,
        state: keyState(t, now),
        created_at: iso(t.createdAt)!,
      });
    }
    return { tokens };
  },
});

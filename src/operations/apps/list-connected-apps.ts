import { z } from 'zod';
import { iso } from '../../clock';
import type { Credential } from '../../storage/store';
import { defineOperation } from '../operation';

const timestamp = z.string().describe('ISO 8601, UTC');

const ConnectedApp = z
  .object({
    client_id: z
      .string()
      .describe(
        "The OAuth client_id: an id this server issued at registration, or the https URL of the app's metadata document.",
      ),
    name: z.string(),
    redirect_hosts: z
      .array(z.string())
      .describe('Where the app sends the owner back after consent: hosts, or the scheme of a native app.'),
    containers: z
      .array(z.object({ id: z.string(), name: z.string() }))
      .describe('The containers ticked on the consent screen (reach).'),
    profile: z.boolean().describe('Whether profile access was ticked.'),
    connected_at: timestamp.describe('When the oldest of its live consent tokens was issued.'),
    last_used_at: timestamp.nullable().describe('When it last called a tool.'),
    expires_at: timestamp.describe('When its last consent token expires; the app must authorize again after that.'),
    tokens: z.number().int().describe('How many live consent tokens the app holds (one per approval).'),
  })
  .meta({ id: 'ConnectedApp' });

export const ConnectedAppList = z.object({ apps: z.array(ConnectedApp) }).meta({ id: 'ConnectedAppList' });

/** Where a redirect URI leads, as the owner should read it: its host, or its scheme for a native app. */
export function redirectHost(uri: string): string {
  try {
    const url = new URL(uri);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`;
  } catch {
    return uri;
  }
}

export const listConnectedApps = defineOperation({
  name: 'list_connected_apps',
  description:
    'List the AI apps connected over OAuth: each with its reach, profile tick, when it connected and was last used.',
  access: 'owner',
  output: ConnectedAppList,
  input: z.object({}),
  async run(ctx) {
    await ctx.usage.flush(); // last_used_at comes from usage, written in batches
    const now = ctx.clock.now();
    const names = new Map((await ctx.store.containers.list(ctx.caller.accountId)).map((c) => [c.id, c.name]));
    const byApp = new Map<string, Credential[]>();
    for (const t of await ctx.store.credentials.list(ctx.caller.accountId, 'consent_token')) {
      if (t.revokedAt != null || (t.expiresAt != null && t.expiresAt <= now) || !t.clientId) continue;
      byApp.set(t.clientId, [...(byApp.get(t.clientId) ?? []), t]);
    }
    const apps = await Promise.all(
      [...byApp].map(async ([clientId, tokens]) => {
        const client = await ctx.store.oauth.getClient(clientId);
        const ticked = new Set(tokens.flatMap((t) => t.containerIds));
        const reach = [...names.keys()].filter((id) => ticked.has(id)); // in the owner's order of containers
        const lastUsed = Math.max(...tokens.map((t) => t.lastUsedAt ?? 0));
        return {
          client_id: clientId,
          name: client?.name ?? tokens[0]!.name,
          redirect_hosts: [...new Set((client?.redirectUris ?? []).map(redirectHost))],
          containers: reach.map((id) => ({ id, name: names.get(id)! })),
          profile: tokens.some((t) => t.profile),
          connected_at: iso(Math.min(...tokens.map((t) => t.createdAt)))!,
          last_used_at: lastUsed > 0 ? iso(lastUsed) : null,
          expires_at: iso(Math.max(...tokens.map((t) => t.expiresAt ?? 0)))!,
          tokens: tokens.length,
        };
      }),
    );
    return { apps: apps.sort((a, b) => b.connected_at.localeCompare(a.connected_at)) };
  },
});

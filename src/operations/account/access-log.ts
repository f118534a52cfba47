/**
 * The owner's reads of the access log: what one key or share, or one connected app (all its consent
 * tokens), read and wrote, newest first, a page at a time. The log holds ids only, never content;
 * each item's `label` is read when the log is, from what the id names now.
 */
import { z } from 'zod';
import { iso } from '../../clock';
import { ServiceError } from '../../errors';
import type { AccessItem as AccessItemRow, AccessSubject } from '../../storage/store';
import { type Context, defineOperation } from '../operation';

const AccessItem = z.object({
  action: z.enum(['returned', 'written', 'removed']),
  kind: z
    .enum(['container', 'document', 'fact', 'profile'])
    .describe('profile: a standing fact served from the profile.'),
  id: z.string(),
  container: z.string().nullable().optional().describe('The container it was returned from or written to.'),
  position: z.number().int().optional().describe("A document's passage: its position."),
  label: z
    .string()
    .nullable()
    .describe(
      "What the id names now: a container's name, a document's title (or first words), a fact's text; null once it is gone.",
    ),
});

const AccessEntry = z.object({
  id: z.string(),
  at: z.string().describe('ISO 8601, UTC'),
  operation: z.string().describe('The tool called.'),
  credential_id: z.string(),
  credential_kind: z.enum(['key', 'consent', 'share']),
  client_id: z.string().nullable().describe("A consent token's app."),
  items: z.array(AccessItem).describe('What the call returned, wrote or removed, in the order of its answer.'),
});

export const AccessLog = z
  .object({
    entries: z.array(AccessEntry),
    next_cursor: z.string().nullable().describe('Pass as cursor for older entries; null at the end.'),
  })
  .meta({ id: 'AccessLog' });

const page = {
  cursor: z.string().max(20).nullish().describe('From next_cursor of the previous page.'),
  limit: z.number().int().min(1).max(200).nullish().describe('Entries a page, 1 to 200; default 50.'),
};

async function readLog(
  ctx: Context,
  subject: AccessSubject,
  input: { cursor?: string | null; limit?: number | null },
): Promise<z.output<typeof AccessLog>> {
  if (input.cursor != null && !/^\d{1,15}$/.test(input.cursor)) {
    throw new ServiceError('validation', 'cursor must be a next_cursor this server gave.', { fields: ['cursor'] });
  }
  await ctx.accessLog.flush(); // the last second's entries are still in memory
  const limit = input.limit ?? 50;
  const rows = await ctx.store.accessLog.list(
    ctx.caller.accountId,
    subject,
    limit + 1,
    input.cursor == null ? null : Number(input.cursor),
  );
  const label = labeller(ctx);
  const entries: z.output<typeof AccessEntry>[] = [];
  for (const e of rows.slice(0, limit)) {
    const items = [];
    for (const item of e.items) items.push({ ...item, label: await label(item) });
    entries.push({
      id: String(e.id),
      at: iso(e.at)!,
      operation: e.operation,
      credential_id: e.credentialId,
      credential_kind: e.credentialKind,
      client_id: e.clientId,
      items,
    });
  }
  return { entries, next_cursor: rows.length > limit ? entries.at(-1)!.id : null };
}

/** Names what an item's id names now, each id read once a page. */
function labeller(ctx: Context): (item: AccessItemRow) => Promise<string | null> {
  const { accountId } = ctx.caller;
  const seen = new Map<string, string | null>();
  const read = async (item: AccessItemRow): Promise<string | null> => {
    if (item.kind === 'container') return (await ctx.store.containers.get(accountId, item.id))?.name ?? null;
    if (item.kind === 'document') {
      const doc = await ctx.store.documents.get(accountId, item.id);
      return doc ? (doc.title ?? doc.content?.slice(0, 80) ?? doc.url ?? doc.id) : null;
    }
    return (await ctx.store.facts.get(accountId, item.id))?.content ?? null;
  };
  return async (item) => {
    if (!seen.has(item.id)) seen.set(item.id, await read(item));
    return seen.get(item.id)!;
  };
}

export const keyAccessLog = defineOperation({
  name: 'key_access_log',
  description:
    'What a developer key or a share read and wrote: per call, the containers, documents, facts and profile entries returned, written or removed (ids only), newest first.',
  access: 'owner',
  output: AccessLog,
  input: z.object({ key_id: z.string().min(1).max(100), ...page }),
  async run(ctx, input) {
    const { accountId } = ctx.caller;
    const key = await ctx.store.credentials.get(accountId, input.key_id);
    const share = await ctx.store.shares.getById(input.key_id);
    // A consent token is read through its app (app_access_log), as the owner knows it.
    if (!(key?.kind === 'developer_key' || share?.accountId === accountId)) {
      throw new ServiceError('not_found', `No key ${input.key_id}.`, { key_id: input.key_id });
    }
    return readLog(ctx, { credentialId: input.key_id }, input);
  },
});

export const appAccessLog = defineOperation({
  name: 'app_access_log',
  description:
    'What a connected app read with its consent tokens (all of them, revoked ones too): per call, what was returned (ids only), newest first.',
  access: 'owner',
  output: AccessLog,
  input: z.object({ client_id: z.string().min(1).max(2000), ...page }),
  async run(ctx, input) {
    const held = (await ctx.store.credentials.list(ctx.caller.accountId, 'consent_token')).some(
      (t) => t.clientId === input.client_id,
    );
    if (!held)
      throw new ServiceError('not_found', `No app ${input.client_id} has been connected.`, {
        client_id: input.client_id,
      });
    return readLog(ctx, { clientId: input.client_id }, input);
  },
});

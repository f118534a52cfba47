/**
 * Looking up a document or fact by id for a caller. One outside reach, or in another account, is
 * answered exactly like one that does not exist: 404, so ids never reveal what they point at.
 */
import { containersInReach } from '../auth/access';
import { ServiceError } from '../errors';
import type { DocumentRow, Fact } from '../storage/store';
import type { Context } from './operation';

const inReach = async (ctx: Context, containerId: string) =>
  (await containersInReach(ctx)).some((c) => c.id === containerId);

export async function findDocument(ctx: Context, id: string): Promise<DocumentRow> {
  const doc = await ctx.store.documents.get(ctx.caller.accountId, id);
  if (!doc || !(await inReach(ctx, doc.containerId)))
    throw new ServiceError('not_found', `No document ${id}.`, { document_id: id });
  return doc;
}

export async function findFact(ctx: Context, id: string, containerId: string | null | undefined): Promise<Fact> {
  const memory = await ctx.store.facts.get(ctx.caller.accountId, id);
  const reachable =
    memory &&
    (memory.containerId
      ? await inReach(ctx, memory.containerId)
      : ctx.caller.kind === 'owner' || ctx.caller.grant.profile);
  if (!memory || !reachable || (containerId && memory.containerId !== containerId)) {
    throw new ServiceError('not_found', `No memory ${id}.`, { memory_id: id });
  }
  return memory;
}

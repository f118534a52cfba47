/** Lookups shared by the owner's operations: the owner's own containers and keys by id. */
import { ServiceError } from '../errors';
import type { Container, Credential } from '../storage/store';
import type { Context } from './operation';

export async function findContainer(ctx: Context, id: string): Promise<Container> {
  const c = await ctx.store.containers.get(ctx.caller.accountId, id);
  if (!c) throw new ServiceError('not_found', `No container ${id}.`, { container: id });
  return c;
}

export async function findKey(ctx: Context, id: string): Promise<Credential> {
  const key = await ctx.store.credentials.get(ctx.caller.accountId, id);
  // A consent token is not a key: its grant changes only by authorizing the app again (Connected apps).
  if (key?.kind !== 'developer_key') throw new ServiceError('not_found', `No key ${id}.`, { key_id: id });
  return key;
}

/** Every id must name one of the owner's containers; the unknown ones are named in the refusal. */
export async function requireOwnContainers(ctx: Context, ids: string[]): Promise<string[]> {
  const own = new Set((await ctx.store.containers.list(ctx.caller.accountId)).map((c) => c.id));
  const unknown = ids.filter((id) => !own.has(id));
  if (unknown.length)
    throw new ServiceError('validation', `Unknown containers: ${unknown.join(', ')}.`, {
      fields: ['containers'],
      unknown,
    });
  return [...new Set(ids)];
}

/** A revoked or expired key keeps its grant as it was: it cannot be changed, only listed. */
export function requireChangeable(ctx: Context, key: Credential): void {
  const now = ctx.clock.now();
  if (key.revokedAt != null || (key.expiresAt != null && key.expiresAt <= now)) {
    throw new ServiceError(
      'conflict',
      `The key ${key.id} is ${key.revokedAt != null ? 'revoked' : 'expired'} and cannot be changed.`,
      { key_id: key.id },
    );
  }
}

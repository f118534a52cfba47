/**
 * "See as": the owner searches exactly as one of their keys or connected apps would, with its reach,
 * profile tick and level. Only the signed-in owner, only their own credentials, and only ones the
 * wire would still accept; the call is the owner's (`seenByOwner`), so the credential's usage, limiter
 * and access log do not count it.
 */
import type { Clock } from '../clock';
import { ServiceError } from '../errors';
import type { Repositories } from '../storage/store';
import { refuseOwnerOnly } from './access';
import type { Caller } from './caller';
import { AuthError, type AuthenticateOptions, callerOf } from './credentials';

/**
 * The caller the credential stands for, seen by the owner. Another account's id is 404 like an
 * unknown one; a revoked, expired or foreign-audience credential is 403 `unauthorized` with the
 * reason the wire would give.
 */
export async function seeAs(
  store: Repositories,
  clock: Clock,
  owner: Caller,
  credentialId: string,
  options: AuthenticateOptions = {},
): Promise<Caller> {
  if (owner.kind !== 'owner') throw refuseOwnerOnly('see_as', owner);
  const credential = await store.credentials.get(owner.accountId, credentialId);
  if (!credential)
    throw new ServiceError('not_found', `No key or connected app ${credentialId}.`, { credential_id: credentialId });
  try {
    return { ...callerOf(credential, clock.now(), options), seenByOwner: true };
  } catch (err) {
    if (err instanceof AuthError) throw new ServiceError('unauthorized', err.message, { credential_id: credentialId });
    throw err;
  }
}

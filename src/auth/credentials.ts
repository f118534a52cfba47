/**
 * Bearer string → Caller. Developer keys look like `egm_<key_id>_<secret>`, consent tokens like
 * `egc_<id>_<secret>`, owner session tokens like `egs_<id>_<secret>`; all are stored only as SHA-256
 * hashes and compared in constant time.
 */
import type { Clock } from '../clock';
import { hintOf, matchesHash, randomBase62, sha256 } from '../ids';
import type { Credential, Repositories } from '../storage/store';
import { type Caller, grantOf } from './caller';

export const KEY_PREFIX = 'egm';
export const SESSION_PREFIX = 'egs';
export const CONSENT_PREFIX = 'egc';
/** Agent shares and workflows: tokens of the `exposures` table. */
export const SHARE_PREFIX = 'egx';
const SECRET_LENGTH = 43; // 43 base62 characters carry more than 256 bits

export type AuthFailure = 'unknown' | 'expired' | 'revoked' | 'audience';

export class AuthError extends Error {
  constructor(readonly reason: AuthFailure) {
    super(AUTH_MESSAGES[reason]);
  }
}

const AUTH_MESSAGES: Record<AuthFailure, string> = {
  unknown: 'The credential is not known to this server.',
  expired: 'The credential has expired.',
  revoked: 'The credential has been revoked.',
  audience: 'The credential was issued for another resource than this server.',
};

/** Mints a secret of the given kind: the token to hand out once, and what is stored of it. */
export function mintSecret(prefix: string, idLength = 12): { id: string; token: string; hash: string; hint: string } {
  const id = randomBase62(idLength);
  const token = `${prefix}_${id}_${randomBase62(SECRET_LENGTH)}`;
  return { id, token, hash: sha256(token), hint: hintOf(token) };
}

export interface AuthenticateOptions {
  /** This server's resource (RFC 8707): a consent token issued for another one is refused. */
  audience?: string;
}

/** A revoked or expired token (key, consent token or share) is refused, saying which. */
function refuseEnded(token: { revokedAt: number | null; expiresAt: number | null }, now: number): void {
  if (token.revokedAt != null) throw new AuthError('revoked');
  if (token.expiresAt != null && token.expiresAt <= now) throw new AuthError('expired');
}

/**
 * The caller a stored key or consent token stands for, once its secret has matched (or the owner
 * sees as it): refused, with the reason, when issued for another resource, revoked or expired.
 */
export function callerOf(
  credential: Credential,
  now: number,
  options: AuthenticateOptions = {},
): Caller & { kind: 'key' | 'consent' } {
  if (credential.kind === 'consent_token' && options.audience && credential.audience !== options.audience)
    throw new AuthError('audience');
  refuseEnded(credential, now);
  return {
    kind: credential.kind === 'developer_key' ? 'key' : 'consent',
    accountId: credential.accountId,
    grant: grantOf(credential),
    credential,
  };
}

/** Resolves a bearer credential; throws AuthError saying why it is not accepted. */
export async function authenticate(
  store: Repositories,
  clock: Clock,
  bearer: string,
  options: AuthenticateOptions = {},
): Promise<Caller> {
  const [prefix, id, secret, ...rest] = bearer.split('_');
  if (!id || !secret || rest.length) throw new AuthError('unknown');
  const now = clock.now();
  if (prefix === KEY_PREFIX || prefix === CONSENT_PREFIX) {
    const found = await store.credentials.getForCall(id);
    const kind = prefix === KEY_PREFIX ? 'developer_key' : 'consent_token';
    if (!found || found.credential.kind !== kind || !matchesHash(bearer, found.credential.secretHash))
      throw new AuthError('unknown');
    return { ...callerOf(found.credential, now, options), accountContainers: found.accountContainers };
  }
  if (prefix === SHARE_PREFIX) {
    const share = await store.shares.getById(id);
    if (!share || !matchesHash(bearer, share.secretHash)) throw new AuthError('unknown');
    refuseEnded(share, now);
    // A read-level grant over the share's containers, without the profile; the only tool it
    // holds is the one of its kind (`holdsTool`).
    const grant = {
      credentialId: share.id,
      name: share.name,
      level: 'read' as const,
      allContainers: false,
      containerIds: share.containerIds,
      profile: false,
    };
    return { kind: 'share', accountId: share.accountId, grant, share };
  }
  if (prefix === SESSION_PREFIX) {
    const session = await store.sessions.get(id);
    if (!session || !matchesHash(bearer, session.secretHash)) throw new AuthError('unknown');
    if (session.expiresAt <= now) throw new AuthError('expired');
    return { kind: 'owner', accountId: session.accountId, sessionId: session.id };
  }
  throw new AuthError('unknown');
}

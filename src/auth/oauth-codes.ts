/**
 * OAuth's authorization codes and the consent tokens they are exchanged for: a code issued when the
 * owner approves an app, exchanged once; tokens revoked when the app is disconnected or a code is
 * replayed. No HTTP here: the OAuth door (src/oauth/) turns GrantError into RFC 6749 answers.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../clock';
import { DAY_MS } from '../clock';
import { matchesHash } from '../ids';
import type { AuthorizationCode, Credential, Repositories, Transaction } from '../storage/store';
import { CONSENT_PREFIX, mintSecret } from './credentials';

/** Authorization codes look like `ega_<id>_<secret>`; only a SHA-256 hash of them is stored. */
const CODE_PREFIX = 'ega';
/** How long a code waits for the app to exchange it. */
const CODE_TTL_MS = 5 * 60_000;
/** Codes are kept this long past their expiry (so a late replay still finds, and revokes, its token). */
const CODE_KEPT_MS = DAY_MS;

/** The RFC 6749 error codes the grant logic can refuse with. */
export type GrantErrorCode = 'invalid_request' | 'invalid_grant' | 'invalid_target';

export class GrantError extends Error {
  constructor(
    readonly error: GrantErrorCode,
    description: string,
  ) {
    super(description);
  }
}

/** What the owner approved on the consent screen: the code's grant before it is issued. */
export type Approval = Pick<
  AuthorizationCode,
  'accountId' | 'clientId' | 'redirectUri' | 'codeChallenge' | 'resource' | 'scope' | 'containerIds' | 'profile'
>;

/** Issues a single-use authorization code for an approval; returns the code to hand to the app. */
export async function issueCode(store: Transaction, clock: Clock, approval: Approval): Promise<string> {
  const now = clock.now();
  const secret = mintSecret(CODE_PREFIX, 16);
  await store.transaction(async (tx) => {
    await tx.oauth.deleteExpiredCodes(now - CODE_KEPT_MS);
    await tx.oauth.insertCode({
      id: secret.id,
      secretHash: secret.hash,
      ...approval,
      containerIds: [...new Set(approval.containerIds)],
      createdAt: now,
      expiresAt: now + CODE_TTL_MS,
      usedAt: null,
      tokenId: null,
    });
    await tx.oauth.markClientUsed(approval.clientId, now);
  });
  return secret.token;
}

export interface Exchange {
  code: string;
  clientId: string;
  redirectUri: string | null;
  codeVerifier: string | null;
  /** The audience the token request names (already checked to be ours), or null when it names none. */
  resource: string | null;
  /** The app's name, kept on the token for the owner's Connected apps page. */
  clientName: string;
  ttlDays: number;
}

export interface IssuedToken {
  token: string;
  expiresIn: number;
  scope: string;
  credential: Credential;
}

const VERIFIER = /^[A-Za-z0-9\-._~]{43,128}$/;

/** PKCE S256 (RFC 7636): base64url(SHA-256(verifier)) must equal the challenge; compared in constant time. */
function verifierMatches(verifier: string, challenge: string): boolean {
  const computed = Buffer.from(createHash('sha256').update(verifier).digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}

/**
 * Exchanges a code for a consent token: level read, reach the ticked containers, the profile as
 * ticked, bound to the code's resource, expiring after `ttlDays`, no refresh token. A code works
 * once: presenting a used code again revokes the token it was exchanged for. Throws GrantError.
 */
export async function exchangeCode(store: Transaction, clock: Clock, x: Exchange): Promise<IssuedToken> {
  const now = clock.now();
  const [prefix, id, secret, ...rest] = x.code.split('_');
  const code = prefix === CODE_PREFIX && id && secret && !rest.length ? await store.oauth.getCode(id) : null;
  if (!code || !matchesHash(x.code, code.secretHash))
    throw new GrantError('invalid_grant', 'The authorization code is not known.');
  if (code.usedAt != null) {
    // RFC 6749 §4.1.2: a code used twice means it leaked; what it minted is no longer trusted.
    await revokeCodeToken(store, code.accountId, code.tokenId, now);
    throw new GrantError(
      'invalid_grant',
      'The authorization code was already used; the token issued for it has been revoked.',
    );
  }
  if (code.expiresAt <= now)
    throw new GrantError('invalid_grant', 'The authorization code has expired; authorize again.');
  if (code.clientId !== x.clientId)
    throw new GrantError('invalid_grant', 'The authorization code was issued to another client.');
  if (!x.redirectUri)
    throw new GrantError(
      'invalid_request',
      'redirect_uri is required: send the one used in the authorization request.',
    );
  if (x.redirectUri !== code.redirectUri)
    throw new GrantError('invalid_grant', 'redirect_uri does not match the one used in the authorization request.');
  if (!x.codeVerifier) throw new GrantError('invalid_request', 'code_verifier is required (PKCE).');
  if (!VERIFIER.test(x.codeVerifier) || !verifierMatches(x.codeVerifier, code.codeChallenge)) {
    throw new GrantError(
      'invalid_grant',
      'code_verifier does not match the code_challenge of the authorization request.',
    );
  }
  if (x.resource && x.resource !== code.resource)
    throw new GrantError('invalid_target', 'resource differs from the one authorized.');

  const minted = mintSecret(CONSENT_PREFIX, 12);
  const ttlMs = x.ttlDays * DAY_MS;
  const credential = await store.transaction(async (tx) => {
    if (!(await tx.oauth.useCode(code.id, now))) {
      throw new GrantError('invalid_grant', 'The authorization code was already used.');
    }
    // A container deleted between the approval and the exchange is simply not in reach.
    const own = new Set((await tx.containers.list(code.accountId)).map((c) => c.id));
    const row: Credential = {
      id: minted.id,
      accountId: code.accountId,
      kind: 'consent_token',
      name: x.clientName,
      secretHash: minted.hash,
      hint: minted.hint,
      level: 'read',
      allContainers: false,
      profile: code.profile,
      expiresInDays: x.ttlDays,
      expiresAt: now + ttlMs,
      revokedAt: null,
      replaces: null,
      createdAt: now,
      lastUsedAt: null,
      containerIds: code.containerIds.filter((c) => own.has(c)),
      clientId: code.clientId,
      audience: code.resource,
    };
    await tx.credentials.insert(row);
    await tx.oauth.setCodeToken(code.id, row.id);
    await tx.oauth.markClientUsed(code.clientId, now);
    return row;
  });
  return { token: minted.token, expiresIn: Math.floor(ttlMs / 1000), scope: code.scope, credential };
}

async function revokeCodeToken(
  store: Repositories,
  accountId: string,
  tokenId: string | null,
  now: number,
): Promise<void> {
  if (!tokenId) return;
  const token = await store.credentials.get(accountId, tokenId);
  if (token && token.revokedAt == null) await store.credentials.update(accountId, tokenId, { revokedAt: now });
}

/** Disconnect: revokes every consent token the app holds on the account at once; returns how many. */
export function revokeApp(store: Repositories, clock: Clock, accountId: string, clientId: string): Promise<number> {
  return store.credentials.revokeConsentTokens(accountId, clientId, clock.now());
}

/**
 * Token revocation (RFC 7009) of one consent token, presented by the app holding it. Anything
 * that is not a live consent token of that app is left alone; the answer does not say which.
 */
export async function revokeConsentToken(
  store: Repositories,
  clock: Clock,
  token: string,
  clientId: string | null,
): Promise<void> {
  const [prefix, id, secret, ...rest] = token.split('_');
  if (prefix !== CONSENT_PREFIX || !id || !secret || rest.length) return;
  const credential = await store.credentials.getById(id);
  if (credential?.kind !== 'consent_token' || !matchesHash(token, credential.secretHash)) return;
  if (clientId && credential.clientId !== clientId) return;
  if (credential.revokedAt == null)
    await store.credentials.update(credential.accountId, credential.id, { revokedAt: clock.now() });
}

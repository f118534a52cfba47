/**
 * Dynamic client registration (RFC 7591) at /oauth/register: public clients only. Tolerant of
 * what real clients send: whatever grant types or auth method they ask for, we register what we
 * support (authorization_code, PKCE, no secret) and answer with it, as §3.2.1 allows. Redirect URIs
 * are judged strictly, by the rules of the application type the client gives (native or web).
 * Never-approved registrations expire after a day.
 */
import type { Clock } from '../clock';
import { DAY_MS } from '../clock';
import { newId } from '../ids';
import { withoutInvisible } from '../names';
import type { Transaction } from '../storage/store';
import type { OAuthErrorCode } from './errors';
import { SCOPE } from './metadata';
import { APPLICATION_TYPES, type ApplicationType, MAX_REDIRECT_URIS, redirectUriProblem } from './redirect-uris';

/** A registration nobody approves within this time is forgotten. */
const UNUSED_CLIENT_TTL_MS = DAY_MS;
const MAX_NAME_CHARS = 200;

export type RegistrationResult =
  | { ok: true; body: Record<string, unknown> }
  | { ok: false; error: OAuthErrorCode; description: string };

/** Registers a public client from an RFC 7591 request body; never throws. */
export async function registerClient(store: Transaction, clock: Clock, body: unknown): Promise<RegistrationResult> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      description: 'The registration request must be a JSON object.',
    };
  }
  const req = body as Record<string, unknown>;
  const applicationType = (req.application_type ?? undefined) as ApplicationType | undefined;
  if (applicationType !== undefined && !APPLICATION_TYPES.includes(applicationType)) {
    return { ok: false, error: 'invalid_client_metadata', description: 'application_type must be "native" or "web".' };
  }
  const uris = req.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    return {
      ok: false,
      error: 'invalid_redirect_uri',
      description: 'redirect_uris must list at least one redirect URI.',
    };
  }
  if (uris.length > MAX_REDIRECT_URIS) {
    return {
      ok: false,
      error: 'invalid_redirect_uri',
      description: `At most ${MAX_REDIRECT_URIS} redirect URIs may be registered.`,
    };
  }
  for (const uri of uris) {
    const problem = redirectUriProblem(uri, applicationType);
    if (problem) return { ok: false, error: 'invalid_redirect_uri', description: `Redirect URI refused: ${problem}.` };
  }
  const redirectUris = [...new Set(uris as string[])];
  // Invisible characters (bidi overrides and the like) could make the name on the consent screen
  // read as another app's: they are dropped, and the answer shows the name as registered (§3.2.1).
  const shown = typeof req.client_name === 'string' ? withoutInvisible(req.client_name).trim() : '';
  const name = shown ? shown.slice(0, MAX_NAME_CHARS) : 'Unnamed app';

  const now = clock.now();
  const clientId = newId('app');
  const answer: Record<string, unknown> = {
    client_id: clientId,
    client_id_issued_at: Math.floor(now / 1000),
    client_name: name,
    redirect_uris: redirectUris,
    // What we support, whatever was asked: refresh_token and client secrets are not (RFC 7591 §3.2.1).
    grant_types: ['authorization_code'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    scope: SCOPE,
  };
  if (applicationType) answer.application_type = applicationType;
  if (
    typeof req.client_uri === 'string' &&
    /^https:\/\/[^\s]+$/.test(req.client_uri) &&
    req.client_uri.length <= 2000
  ) {
    answer.client_uri = req.client_uri;
  }
  if (typeof req.software_id === 'string') answer.software_id = req.software_id.slice(0, 200);
  if (typeof req.software_version === 'string') answer.software_version = req.software_version.slice(0, 100);

  await store.transaction(async (tx) => {
    await tx.oauth.deleteExpiredClients(now);
    await tx.oauth.insertClient({
      clientId,
      kind: 'registered',
      name,
      redirectUris,
      metadata: answer,
      createdAt: now,
      lastUsedAt: null,
      expiresAt: now + UNUSED_CLIENT_TTL_MS,
      fetchedAt: null,
      freshUntil: null,
    });
  });
  return { ok: true, body: answer };
}

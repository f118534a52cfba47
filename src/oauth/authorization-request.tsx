/** @jsxImportSource hono/jsx */
/**
 * An authorization request's checks, in the order RFC 6749 §4.1.2.1 asks: until the client and its
 * redirect URI are known to be right, an error is a page shown to the owner and nothing is
 * redirected; after that, errors go back to the app with `state` and `iss` (RFC 9207).
 */
import type { Context } from 'hono';
import type { AppEnv } from '../http/app-env';
import type { Logger } from '../log';
import type { Site } from '../site';
import type { OAuthClient } from '../storage/store';
import { ErrorPage } from '../web/error-page';
import { pageHeaders } from '../web/layout';
import { ClientMetadataError } from './client-metadata';
import type { OAuthClients } from './clients';
import { audienceFor } from './metadata';
import { redirectUriMatches } from './redirect-uris';

/** The parameters of an authorization request that travel through the consent form. */
export const REQUEST_PARAMS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'code_challenge',
  'code_challenge_method',
  'resource',
  'scope',
] as const;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

export interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  audience: string;
  /** The parameters as received, to echo in the consent form. */
  echo: Record<string, string>;
}

export type Params = Record<string, string[]>;

type Respond = (c: Context<AppEnv>) => Response | Promise<Response>;
export type Checked = { ok: true; request: AuthorizationRequest } | { ok: false; response: Respond };

/** Shows a page instead of redirecting: the redirect URI cannot be trusted yet. */
const page =
  (status: 400 | 403, title: string, message: string): Respond =>
  (c) => {
    pageHeaders(c);
    return c.html(<ErrorPage title={title} message={message} />, status);
  };

/** Sends the owner back to the app's redirect URI with these parameters (and `state`, and `iss`). */
export function redirectToApp(
  c: Context<AppEnv>,
  site: Site,
  redirectUri: string,
  state: string | null,
  params: Record<string, string>,
  status: 302 | 303,
) {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  if (state != null) url.searchParams.set('state', state);
  url.searchParams.set('iss', site.baseUrl);
  c.header('Cache-Control', 'no-store');
  return c.redirect(url.href, status);
}

/**
 * Checks an authorization request (query or consent form); `status` is the redirect's, 302 for GET
 * and 303 for POST.
 */
export async function checkAuthorizationRequest(
  deps: { site: Site; clients: OAuthClients; log: Logger },
  params: Params,
  status: 302 | 303,
): Promise<Checked> {
  const one = (name: string) => params[name]?.[0] ?? null;
  const clientId = one('client_id');
  if (!clientId)
    return {
      ok: false,
      response: page(400, 'Missing client', 'The app did not say who it is (client_id is missing).'),
    };
  if ((params.client_id?.length ?? 0) > 1 || (params.redirect_uri?.length ?? 0) > 1) {
    return { ok: false, response: page(400, 'Bad request', 'client_id and redirect_uri may each be given once.') };
  }
  let client: OAuthClient | null;
  try {
    client = await deps.clients.find(clientId);
  } catch (err) {
    if (!(err instanceof ClientMetadataError)) throw err;
    deps.log.warn('client metadata document refused', { client_id: clientId, error: err.message });
    return { ok: false, response: page(400, 'Unknown app', `The app's description could not be used: ${err.message}`) };
  }
  if (!client) {
    return {
      ok: false,
      response: page(
        400,
        'Unknown app',
        'This app is not registered here, or its registration expired. Connect it again from the app.',
      ),
    };
  }
  const redirectUri = one('redirect_uri');
  if (!redirectUri)
    return {
      ok: false,
      response: page(400, 'Bad request', 'The app did not say where to send you back (redirect_uri is missing).'),
    };
  if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return {
      ok: false,
      response: page(
        400,
        'Wrong return address',
        `${redirectUri} is not a return address the app ${client.name} registered.`,
      ),
    };
  }
  const state = one('state');
  const fail = (error: string, description: string): Checked => ({
    ok: false,
    response: (c) => redirectToApp(c, deps.site, redirectUri, state, { error, error_description: description }, status),
  });
  for (const name of REQUEST_PARAMS) {
    if ((params[name]?.length ?? 0) > 1) return fail('invalid_request', `${name} may be given only once.`);
  }
  if (one('response_type') !== 'code')
    return fail('unsupported_response_type', 'Only response_type=code is supported.');
  const codeChallenge = one('code_challenge');
  if (!codeChallenge) return fail('invalid_request', 'code_challenge is required: PKCE with S256.');
  if (one('code_challenge_method') !== 'S256')
    return fail('invalid_request', 'code_challenge_method must be S256; plain and an absent method are refused.');
  if (!CHALLENGE.test(codeChallenge))
    return fail('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).');
  const audience = audienceFor(deps.site, one('resource'));
  if (!audience)
    return fail('invalid_target', `resource must be ${deps.site.baseUrl}/mcp-http (or ${deps.site.baseUrl}).`);
  // Unknown scopes (openid, offline_access, …) are dropped, not refused: the grant is always memory.read.
  const echo: Record<string, string> = {};
  for (const name of REQUEST_PARAMS) {
    const value = one(name);
    if (value != null) echo[name] = value;
  }
  return { ok: true, request: { client, redirectUri, state, codeChallenge, audience, echo } };
}

/** @jsxImportSource hono/jsx */
/**
 * The authorization endpoint. GET checks the request and shows the consent screen (after sign-in
 * when needed); POST is the consent form coming back: Approve issues a code, Deny answers
 * access_denied. Until the client and its redirect URI are known to be right, errors are shown to
 * the owner and nothing is redirected (RFC 6749 §4.1.2.1); after that they go back to the app
 * with `state` and `iss` (RFC 9207).
 */
import type { Context } from 'hono';
import { issueCode } from '../auth/grants';
import type { AppEnv } from '../http/app-env';
import { redirectHost } from '../operations/list-connected-apps';
import type { Services } from '../operations/operation';
import type { Site } from '../site';
import type { OAuthClient } from '../storage/store';
import { ConsentPage } from '../web/consent-page';
import { ErrorPage } from '../web/error-page';
import { pageHeaders } from '../web/layout';
import { signInUrl } from '../web/paths';
import { emailOf } from '../web/routes';
import { foreignOrigin, type FormTokens, type OwnerSession, ownerSession } from '../web/session';
import { ClientMetadataError, isMetadataDocumentClientId } from './client-metadata';
import type { OAuthClients } from './clients';
import { audienceFor, AUTHORIZE_PATH, SCOPE } from './metadata';
import { redirectUriMatches } from './redirect-uris';

export interface AuthorizeDeps {
  services: Services;
  site: Site;
  forms: FormTokens;
  clients: OAuthClients;
  consentTtlDays: number;
}

/** The parameters of an authorization request that travel through the consent form. */
const REQUEST_PARAMS = ['response_type', 'client_id', 'redirect_uri', 'state', 'code_challenge', 'code_challenge_method', 'resource', 'scope'] as const;
const CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

interface AuthorizationRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  audience: string;
  /** The parameters as received, to echo in the consent form. */
  echo: Record<string, string>;
}

type Checked =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; response: (c: Context<AppEnv>) => Response | Promise<Response> };

type Params = Record<string, string[]>;

export function authorizeHandlers(deps: AuthorizeDeps) {
  const { services, site, forms } = deps;

  /** Shows a page instead of redirecting: the redirect URI cannot be trusted yet. */
  const page = (status: number, title: string, message: string) => (c: Context<AppEnv>) => {
    pageHeaders(c);
    return c.html(<ErrorPage title={title} message={message} />, status as 400);
  };

  /** Sends the owner back to the app with an error (and state, and iss). */
  const back = (redirectUri: string, state: string | null, error: string, description: string, status: 302 | 303) => (c: Context<AppEnv>) => {
    const url = new URL(redirectUri);
    url.searchParams.set('error', error);
    url.searchParams.set('error_description', description);
    if (state != null) url.searchParams.set('state', state);
    url.searchParams.set('iss', site.baseUrl);
    c.header('Cache-Control', 'no-store');
    return c.redirect(url.href, status);
  };

  async function check(params: Params, status: 302 | 303): Promise<Checked> {
    const one = (name: string) => params[name]?.[0] ?? null;
    const clientId = one('client_id');
    if (!clientId) return { ok: false, response: page(400, 'Missing client', 'The app did not say who it is (client_id is missing).') };
    if ((params.client_id?.length ?? 0) > 1 || (params.redirect_uri?.length ?? 0) > 1) {
      return { ok: false, response: page(400, 'Bad request', 'client_id and redirect_uri may each be given once.') };
    }
    let client: OAuthClient | null;
    try {
      client = await deps.clients.find(clientId);
    } catch (err) {
      if (!(err instanceof ClientMetadataError)) throw err;
      services.log.warn('client metadata document refused', { client_id: clientId, error: err.message });
      return { ok: false, response: page(400, 'Unknown app', `The app's description could not be used: ${err.message}`) };
    }
    if (!client) {
      return { ok: false, response: page(400, 'Unknown app', 'This app is not registered here, or its registration expired. Connect it again from the app.') };
    }
    const redirectUri = one('redirect_uri');
    if (!redirectUri) return { ok: false, response: page(400, 'Bad request', 'The app did not say where to send you back (redirect_uri is missing).') };
    if (!redirectUriMatches(client.redirectUris, redirectUri)) {
      return { ok: false, response: page(400, 'Wrong return address', `${redirectUri} is not a return address the app ${client.name} registered.`) };
    }
    const state = one('state');
    const fail = (error: string, description: string): Checked => ({ ok: false, response: back(redirectUri, state, error, description, status) });
    for (const name of REQUEST_PARAMS) {
      if ((params[name]?.length ?? 0) > 1) return fail('invalid_request', `${name} may be given only once.`);
    }
    if (one('response_type') !== 'code') return fail('unsupported_response_type', 'Only response_type=code is supported.');
    const codeChallenge = one('code_challenge');
    if (!codeChallenge) return fail('invalid_request', 'code_challenge is required: PKCE with S256.');
    if (one('code_challenge_method') !== 'S256') return fail('invalid_request', 'code_challenge_method must be S256; plain and an absent method are refused.');
    if (!CHALLENGE.test(codeChallenge)) return fail('invalid_request', 'code_challenge must be a base64url SHA-256 digest (43 characters).');
    const audience = audienceFor(site, one('resource'));
    if (!audience) return fail('invalid_target', `resource must be ${site.baseUrl}/mcp-http (or ${site.baseUrl}).`);
    // Unknown scopes (openid, offline_access, …) are dropped, not refused: the grant is always memory.read.
    const echo: Record<string, string> = {};
    for (const name of REQUEST_PARAMS) {
      const value = one(name);
      if (value != null) echo[name] = value;
    }
    return { ok: true, request: { client, redirectUri, state, codeChallenge, audience, echo } };
  }

  function consentPage(c: Context<AppEnv>, session: OwnerSession, request: AuthorizationRequest, status = 200, error: string | null = null,
    ticked?: { containers: string[]; profile: boolean }) {
    pageHeaders(c, [formTarget(request.redirectUri)]);
    const app = {
      name: request.client.name, clientId: request.client.clientId, redirectHost: redirectHost(request.redirectUri),
      documented: isMetadataDocumentClientId(request.client.clientId),
    };
    return c.html(
      <ConsentPage
        app={app}
        containers={services.store.listContainers(session.accountId)}
        request={request.echo}
        csrf={forms.tokenFor('session', session.sessionId)}
        email={emailOf(services, session.accountId)}
        ttlDays={deps.consentTtlDays}
        ticked={ticked}
        error={error}
      />,
      status as 200,
    );
  }

  async function get(c: Context<AppEnv>): Promise<Response> {
    const params = c.req.queries() ?? {};
    const session = ownerSession(c, services);
    const signInFirst = () => c.redirect(signInUrl(`${AUTHORIZE_PATH}${new URL(c.req.url).search}`), 303);
    // Only a signed-in owner makes the server fetch an app's metadata document: nobody else can
    // make it send requests to URLs of their choosing. A registration is checked before sign-in.
    if (!session && isMetadataDocumentClientId(params.client_id?.[0] ?? '')) return signInFirst();
    const checked = await check(params, 302);
    if (!checked.ok) return checked.response(c);
    if (!session) return signInFirst();
    return consentPage(c, session, checked.request);
  }

  async function post(c: Context<AppEnv>): Promise<Response> {
    const form = await c.req.parseBody({ all: true });
    // fromEntries defines own properties: a field named __proto__ stays a field, not the prototype.
    const params: Params = Object.fromEntries(Object.entries(form).map(([name, value]) => [
      name, (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string'),
    ]));
    const session = ownerSession(c, services);
    if (!session) {
      const again = new URLSearchParams();
      for (const name of REQUEST_PARAMS) for (const value of params[name] ?? []) again.append(name, value);
      return c.redirect(signInUrl(`${AUTHORIZE_PATH}?${again}`), 303);
    }
    const checked = await check(params, 303);
    if (!checked.ok) return checked.response(c);
    const { request } = checked;
    const ticked = { containers: params.containers ?? [], profile: params.profile?.[0] === 'on' };
    if (foreignOrigin(c, site) || !forms.check('session', session.sessionId, params.csrf?.[0])) {
      return consentPage(c, session, request, 403, 'This form expired or came from another site. Check the ticks and decide again.', ticked);
    }
    const decision = params.decision?.[0];
    if (decision === 'deny') {
      services.log.info('app denied', { client_id: request.client.clientId });
      return back(request.redirectUri, request.state, 'access_denied', 'The owner denied the request.', 303)(c);
    }
    if (decision !== 'approve') return consentPage(c, session, request, 400, 'Choose Approve or Deny.', ticked);
    const own = new Set(services.store.listContainers(session.accountId).map((x) => x.id));
    const unknown = ticked.containers.filter((id) => !own.has(id));
    if (unknown.length) return consentPage(c, session, request, 400, 'A ticked container no longer exists. Check the ticks and approve again.');
    if (ticked.containers.length === 0 && !ticked.profile) {
      return consentPage(c, session, request, 400, 'Tick at least one container or profile access, or Deny.', ticked);
    }
    const code = issueCode(services.store, services.clock, {
      accountId: session.accountId, clientId: request.client.clientId, redirectUri: request.redirectUri, codeChallenge: request.codeChallenge,
      resource: request.audience, scope: SCOPE, containerIds: ticked.containers, profile: ticked.profile,
    });
    services.log.info('app approved', { client_id: request.client.clientId, containers: ticked.containers.length, profile: ticked.profile });
    const url = new URL(request.redirectUri);
    url.searchParams.set('code', code);
    if (request.state != null) url.searchParams.set('state', request.state);
    url.searchParams.set('iss', site.baseUrl);
    c.header('Cache-Control', 'no-store');
    return c.redirect(url.href, 303);
  }

  return { get, post };
}

/** The CSP form-action source that lets the consent form's answer reach the app's redirect URI. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

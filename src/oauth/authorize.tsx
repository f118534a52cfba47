/** @jsxImportSource hono/jsx */
/**
 * The authorization endpoint. GET checks the request and shows the consent screen (after sign-in
 * when needed); POST is the consent form coming back: Approve issues a code, Deny answers
 * access_denied. The request's checks, and where their errors go, are authorization-request.tsx.
 */
import type { Context } from 'hono';
import { issueCode } from '../auth/oauth-codes';
import type { AppEnv } from '../http/app-env';
import { type OwnerSession, ownerSession } from '../http/session-cookie';
import { getAccount, listContainers } from '../operations';
import { redirectHost } from '../operations/apps/list-connected-apps';
import { invoke, type Services } from '../operations/operation';
import type { Site } from '../site';
import { ConsentPage } from '../web/consent-page';
import { foreignOrigin, type FormTokens } from '../web/forms';
import { pageHeaders } from '../web/layout';
import { ownerContext } from '../web/owner-kit';
import { signInUrl } from '../web/paths';
import {
  type AuthorizationRequest,
  checkAuthorizationRequest,
  type Params,
  REQUEST_PARAMS,
  redirectToApp,
} from './authorization-request';
import { isMetadataDocumentClientId } from './client-metadata';
import type { OAuthClients } from './clients';
import { AUTHORIZE_PATH, SCOPE } from './metadata';

export interface AuthorizeDeps {
  services: Services;
  site: Site;
  forms: FormTokens;
  clients: OAuthClients;
  consentTtlDays: number;
}

export function authorizeHandlers(deps: AuthorizeDeps) {
  const { services, site, forms } = deps;

  async function consentPage(
    c: Context<AppEnv>,
    session: OwnerSession,
    request: AuthorizationRequest,
    status: 200 | 400 | 403 = 200,
    error: string | null = null,
    ticked?: { containers: string[]; profile: boolean },
  ) {
    pageHeaders(c, [formTarget(request.redirectUri)]);
    const ctx = ownerContext(c, services, session);
    const app = {
      name: request.client.name,
      clientId: request.client.clientId,
      redirectHost: redirectHost(request.redirectUri),
      documented: isMetadataDocumentClientId(request.client.clientId),
    };
    return c.html(
      <ConsentPage
        app={app}
        containers={(await invoke(listContainers, ctx, {})).containers}
        request={request.echo}
        csrf={forms.tokenFor('session', session.sessionId)}
        email={(await invoke(getAccount, ctx, {})).email}
        ttlDays={deps.consentTtlDays}
        ticked={ticked}
        error={error}
      />,
      status,
    );
  }

  async function get(c: Context<AppEnv>): Promise<Response> {
    const params = c.req.queries() ?? {};
    const session = await ownerSession(c, services);
    const signInFirst = () => c.redirect(signInUrl(`${AUTHORIZE_PATH}${new URL(c.req.url).search}`), 303);
    // Only a signed-in owner makes the server fetch an app's metadata document: nobody else can
    // make it send requests to URLs of their choosing. A registration is checked before sign-in.
    if (!session && isMetadataDocumentClientId(params.client_id?.[0] ?? '')) return signInFirst();
    const checked = await checkAuthorizationRequest({ site, clients: deps.clients, log: services.log }, params, 302);
    if (!checked.ok) return checked.response(c);
    if (!session) return signInFirst();
    return consentPage(c, session, checked.request);
  }

  async function post(c: Context<AppEnv>): Promise<Response> {
    const form = await c.req.parseBody({ all: true });
    // fromEntries defines own properties: a field named __proto__ stays a field, not the prototype.
    const params: Params = Object.fromEntries(
      Object.entries(form).map(([name, value]) => [
        name,
        (Array.isArray(value) ? value : [value]).filter((v): v is string => typeof v === 'string'),
      ]),
    );
    const session = await ownerSession(c, services);
    if (!session) {
      const again = new URLSearchParams();
      for (const name of REQUEST_PARAMS) for (const value of params[name] ?? []) again.append(name, value);
      return c.redirect(signInUrl(`${AUTHORIZE_PATH}?${again}`), 303);
    }
    const checked = await checkAuthorizationRequest({ site, clients: deps.clients, log: services.log }, params, 303);
    if (!checked.ok) return checked.response(c);
    const { request } = checked;
    const ticked = { containers: params.containers ?? [], profile: params.profile?.[0] === 'on' };
    if (foreignOrigin(c, site) || !forms.check('session', session.sessionId, params.csrf?.[0])) {
      return consentPage(
        c,
        session,
        request,
        403,
        'This form expired or came from another site. Check the ticks and decide again.',
        ticked,
      );
    }
    const decision = params.decision?.[0];
    if (decision === 'deny') {
      services.log.info('app denied', { client_id: request.client.clientId });
      return redirectToApp(
        c,
        site,
        request.redirectUri,
        request.state,
        { error: 'access_denied', error_description: 'The owner denied the request.' },
        303,
      );
    }
    if (decision !== 'approve') return consentPage(c, session, request, 400, 'Choose Approve or Deny.', ticked);
    const own = new Set(
      (await invoke(listContainers, ownerContext(c, services, session), {})).containers.map((x) => x.id),
    );
    const unknown = ticked.containers.filter((id) => !own.has(id));
    if (unknown.length)
      return consentPage(
        c,
        session,
        request,
        400,
        'A ticked container no longer exists. Check the ticks and approve again.',
      );
    if (ticked.containers.length === 0 && !ticked.profile) {
      return consentPage(c, session, request, 400, 'Tick at least one container or profile access, or Deny.', ticked);
    }
    const code = await issueCode(services.store, services.clock, {
      accountId: session.accountId,
      clientId: request.client.clientId,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.audience,
      scope: SCOPE,
      containerIds: ticked.containers,
      profile: ticked.profile,
    });
    services.log.info('app approved', {
      client_id: request.client.clientId,
      containers: ticked.containers.length,
      profile: ticked.profile,
    });
    return redirectToApp(c, site, request.redirectUri, request.state, { code }, 303);
  }

  return { get, post };
}

/** The CSP form-action source that lets the consent form's answer reach the app's redirect URI. */
function formTarget(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

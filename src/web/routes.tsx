/** @jsxImportSource hono/jsx */
/**
 * The owner's web pages: sign in (then on to `next`), sign out, and Connected apps with
 * Disconnect here; setup, keys and the memory pages in owner-routes.tsx. Forms carry CSRF tokens; the session is a cookie (web/session.ts). The
 * consent screen is served by the OAuth door (oauth/authorize.ts) with the same pieces.
 */
import { type Context, Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { signIn } from '../auth/owner';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { disconnectApp, listConnectedApps } from '../operations';
import { type Context as OpContext, contextFor, invoke, type Services } from '../operations/operation';
import type { PasswordThrottle } from '../http/middleware/password-throttle';
import type { Site } from '../site';
import { ConnectedAppsPage } from './connected-apps-page';
import { ErrorPage } from './error-page';
import { ownerRoutes } from './owner-routes';
import { HOME_PATH } from './setup-routes';
import { pageHeaders, STYLESHEET_PATH, stylesheet } from './layout';
import {
  clearSessionCookie, foreignOrigin, FormTokens, localPath, type OwnerSession, ownerSession, setSessionCookie, SIGN_IN_COOKIE, signInSubject,
} from './session';
import { SignInPage } from './sign-in-page';

export const SIGN_IN_PATH = '/sign-in';
export const CONNECTED_APPS_PATH = '/connected-apps';

export interface WebDeps {
  services: Services;
  site: Site;
  forms: FormTokens;
  /** The sign-in throttle shared with POST /v1/session. */
  passwords: PasswordThrottle;
}

/** Where to send someone who must sign in first, coming back to `next` afterwards. */
export const signInUrl = (next: string): string => `${SIGN_IN_PATH}?${new URLSearchParams({ next })}`;

/** The email of the signed-in owner, for the page header. */
export function emailOf(services: Services, accountId: string): string {
  return services.store.getAccount(accountId)?.email ?? '';
}

/** An operation context for the owner signed in with the cookie. */
export function ownerContext(c: Context<AppEnv>, services: Services, session: OwnerSession): OpContext {
  return contextFor(services, { kind: 'owner', ...session }, c.get('traceId'));
}

export function webRoutes({ services, site, forms, passwords }: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(STYLESHEET_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(stylesheet, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });

  app.get(SIGN_IN_PATH, (c) => {
    if (services.store.countAccounts() === 0) return c.redirect('/setup', 303);
    const next = localPath(c.req.query('next'), HOME_PATH);
    if (ownerSession(c, services)) return c.redirect(next, 303);
    pageHeaders(c);
    return c.html(<SignInPage next={next} csrf={forms.tokenFor('sign_in', signInSubject(c, site))} />);
  });

  app.post(SIGN_IN_PATH, async (c) => {
    pageHeaders(c);
    const form = await c.req.parseBody();
    const next = localPath(form.next, HOME_PATH);
    const email = typeof form.email === 'string' ? form.email : '';
    const page = (status: number, error: string) => {
      const csrf = forms.tokenFor('sign_in', signInSubject(c, site));
      return c.html(<SignInPage next={next} csrf={csrf} email={email} error={error} />, status as 400);
    };
    const origin = foreignOrigin(c, site);
    if (origin) return page(403, `A sign-in from ${origin} is not accepted here.`);
    if (!forms.check('sign_in', signInSubject(c, site), form.csrf)) return page(403, 'The sign-in form expired. Please try again.');
    try {
      passwords.take(c);
    } catch {
      return page(429, 'Too many sign-in attempts. Wait a minute and try again.');
    }
    const password = typeof form.password === 'string' ? form.password : '';
    if (!email || !password) return page(400, 'Give your email and password.');
    try {
      const session = await signIn(services.store, services.clock, email, password);
      setSessionCookie(c, site, session.token, session.expiresAt, services.clock.now());
      deleteCookie(c, SIGN_IN_COOKIE, { path: '/' });
      return c.redirect(next, 303);
    } catch (err) {
      if (err instanceof ServiceError && err.code === 'unauthorized') return page(401, err.message);
      throw err;
    }
  });

  app.post('/sign-out', async (c) => {
    const session = ownerSession(c, services);
    const form = await c.req.parseBody();
    // Like every owner post: without the session's CSRF token another site could sign the owner out.
    if (session && (foreignOrigin(c, site) || !forms.check('session', session.sessionId, form.csrf))) {
      pageHeaders(c);
      return c.html(<ErrorPage title="Not signed out" message="The form expired or came from another site. Reload the page and sign out again." />, 403);
    }
    if (session) services.store.deleteSession(session.sessionId);
    clearSessionCookie(c, site);
    return c.redirect(SIGN_IN_PATH, 303);
  });

  app.get(CONNECTED_APPS_PATH, async (c) => {
    const session = ownerSession(c, services);
    if (!session) return c.redirect(signInUrl(CONNECTED_APPS_PATH), 303);
    const { apps } = await invoke(listConnectedApps, ownerContext(c, services, session), {});
    const notice = c.req.query('disconnected') ? 'The app was disconnected: its tokens no longer work.' : null;
    pageHeaders(c);
    return c.html(
      <ConnectedAppsPage apps={apps} csrf={forms.tokenFor('session', session.sessionId)} email={emailOf(services, session.accountId)} notice={notice} />,
    );
  });

  app.post(`${CONNECTED_APPS_PATH}/disconnect`, async (c) => {
    const session = ownerSession(c, services);
    if (!session) return c.redirect(signInUrl(CONNECTED_APPS_PATH), 303);
    const form = await c.req.parseBody();
    if (foreignOrigin(c, site) || !forms.check('session', session.sessionId, form.csrf)) {
      pageHeaders(c);
      return c.html(<ErrorPage title="Not disconnected" message="The form expired or came from another site. Reload Connected apps and try again." />, 403);
    }
    const clientId = typeof form.client_id === 'string' ? form.client_id : '';
    try {
      await invoke(disconnectApp, ownerContext(c, services, session), { client_id: clientId });
    } catch (err) {
      if (!(err instanceof ServiceError) || err.code !== 'not_found') throw err;
    }
    return c.redirect(`${CONNECTED_APPS_PATH}?disconnected=1`, 303);
  });

  app.route('/', ownerRoutes({ services, site, forms, passwords }));
  return app;
}

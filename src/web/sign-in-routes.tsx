/** @jsxImportSource hono/jsx */
/** Sign in (then on to `next`) and sign out. The session is a cookie (session.ts); both forms carry CSRF tokens. */
import { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { endSession, hasOwner, signIn } from '../auth/owner';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { ErrorPage } from './error-page';
import { pageHeaders } from './layout';
import type { OwnerKit } from './owner-kit';
import { HOME_PATH, SIGN_IN_PATH } from './paths';
import { clearSessionCookie, ownerSession, setSessionCookie } from '../http/session-cookie';
import { foreignOrigin, localPath, SIGN_IN_COOKIE, signInSubject } from './forms';
import { SignInPage } from './sign-in-page';

export function signInRoutes({ services, site, forms, passwords }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.get(SIGN_IN_PATH, async (c) => {
    if (!(await hasOwner(services.store))) return c.redirect('/setup', 303);
    const next = localPath(c.req.query('next'), HOME_PATH);
    if (await ownerSession(c, services)) return c.redirect(next, 303);
    pageHeaders(c);
    return c.html(<SignInPage next={next} csrf={forms.tokenFor('sign_in', signInSubject(c, site))} />);
  });

  app.post(SIGN_IN_PATH, async (c) => {
    pageHeaders(c);
    const form = await c.req.parseBody();
    const next = localPath(form.next, HOME_PATH);
    const email = typeof form.email === 'string' ? form.email : '';
    const page = (status: 400 | 401 | 403 | 429, error: string) => {
      const csrf = forms.tokenFor('sign_in', signInSubject(c, site));
      return c.html(<SignInPage next={next} csrf={csrf} email={email} error={error} />, status);
    };
    const origin = foreignOrigin(c, site);
    if (origin) return page(403, `A sign-in from ${origin} is not accepted here.`);
    if (!forms.check('sign_in', signInSubject(c, site), form.csrf))
      return page(403, 'The sign-in form expired. Please try again.');
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
    const session = await ownerSession(c, services);
    const form = await c.req.parseBody();
    // Like every owner post: without the session's CSRF token another site could sign the owner out.
    if (session && (foreignOrigin(c, site) || !forms.check('session', session.sessionId, form.csrf))) {
      pageHeaders(c);
      return c.html(
        <ErrorPage
          title="Not signed out"
          message="The form expired or came from another site. Reload the page and sign out again."
        />,
        403,
      );
    }
    if (session) await endSession(services.store, session.sessionId);
    clearSessionCookie(c, site);
    return c.redirect(SIGN_IN_PATH, 303);
  });

  return app;
}

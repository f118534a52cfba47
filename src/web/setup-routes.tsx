/** @jsxImportSource hono/jsx */
/** The page script, the front door, and first-run setup: the owner's account, made only while there is none. */
import { Hono } from 'hono';
import { deleteCookie } from 'hono/cookie';
import { createAccount, hasOwner, startSession } from '../auth/owner';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { clientAddress } from '../http/client-address';
import { RateLimiter } from '../operations/calls/rate-limiter';
import { SCRIPT_PATH } from './layout';
import { type Form, type OwnerKit, str } from './owner-kit';
import { HOME_PATH, SIGN_IN_PATH, signInUrl } from './paths';
import { SCRIPT } from './script';
import { ownerSession, setSessionCookie } from '../http/session-cookie';
import { SIGN_IN_COOKIE, signInSubject, foreignOrigin } from './forms';
import { SetupPage } from './setup-page';

/** Setup attempts a minute from one address, as for sign-in. */
const SETUP_PER_MIN = 10;

export function setupRoutes({ services, site, forms, html, flash }: OwnerKit): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const setupLimiter = new RateLimiter(services.clock, SETUP_PER_MIN);

  app.get(SCRIPT_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(SCRIPT, 200, { 'Content-Type': 'text/javascript; charset=utf-8' });
  });

  app.get('/', async (c) => {
    if (!(await hasOwner(services.store))) return c.redirect('/setup', 303);
    return c.redirect((await ownerSession(c, services)) ? HOME_PATH : signInUrl(HOME_PATH), 303);
  });

  app.get('/setup', async (c) => {
    if (await hasOwner(services.store)) return c.redirect(SIGN_IN_PATH, 303);
    return html(c, <SetupPage csrf={forms.tokenFor('sign_in', signInSubject(c, site))} />);
  });

  app.post('/setup', async (c) => {
    if (await hasOwner(services.store)) return c.redirect(SIGN_IN_PATH, 303);
    const form = (await c.req.parseBody()) as Form;
    const email = str(form, 'email');
    const again = (status: 400 | 403 | 429, error: string) =>
      html(
        c,
        <SetupPage csrf={forms.tokenFor('sign_in', signInSubject(c, site))} email={email} error={error} />,
        status,
      );
    const origin = foreignOrigin(c, site);
    if (origin) return again(403, `A setup from ${origin} is not accepted here.`);
    if (!forms.check('sign_in', signInSubject(c, site), form.csrf))
      return again(403, 'The setup form expired. Please try again.');
    try {
      setupLimiter.take(`setup:${clientAddress(c, site)}`);
    } catch {
      return again(429, 'Too many attempts. Wait a minute and try again.');
    }
    const password = str(form, 'password');
    if (password !== str(form, 'password_again')) return again(400, 'The two passwords differ.');
    try {
      const account = await createAccount(services.store, services.clock, email, password, { firstOnly: true });
      const session = await startSession(services.store, services.clock, account.id);
      setSessionCookie(c, site, session.token, session.expiresAt, services.clock.now());
      deleteCookie(c, SIGN_IN_COOKIE, { path: '/' });
      flash(c, 'notice', 'Your account is ready. Make a container to start your memory.');
      return c.redirect(HOME_PATH, 303);
    } catch (err) {
      if (err instanceof ServiceError && (err.code === 'validation' || err.code === 'conflict'))
        return again(400, err.message);
      throw err;
    }
  });

  return app;
}

/**
 * The owner's web pages: the stylesheet, and every area of the owner's app (owner-routes.tsx). The
 * consent screen is served by the OAuth door (oauth/authorize.tsx) with the same pieces.
 */
import { type Context, Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import type { PasswordThrottle } from '../http/middleware/password-throttle';
import { type Context as OpContext, contextFor, type Services } from '../operations/operation';
import type { Site } from '../site';
import type { ImportRuns } from './import-runs';
import { STYLESHEET_PATH, stylesheet } from './layout';
import { ownerRoutes } from './owner-routes';
import type { FormTokens, OwnerSession } from './session';

export interface WebDeps {
  services: Services;
  site: Site;
  forms: FormTokens;
  /** The sign-in throttle shared with POST /v1/session. */
  passwords: PasswordThrottle;
  /** The Import page's runs. */
  imports: ImportRuns;
}

/** The email of the signed-in owner, for the page header. */
export function emailOf(services: Services, accountId: string): string {
  return services.store.getAccount(accountId)?.email ?? '';
}

/** An operation context for the owner signed in with the cookie. */
export function ownerContext(c: Context<AppEnv>, services: Services, session: OwnerSession): OpContext {
  return contextFor(services, { kind: 'owner', ...session }, c.get('traceId'));
}

export function webRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(STYLESHEET_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(stylesheet, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  app.route('/', ownerRoutes(deps));
  return app;
}

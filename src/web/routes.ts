/** The tab's icon: a small drawing, in the accent colour (a browser asks for /favicon.ico on every page). */
const ICON =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#2f5bd3"/>' +
  '<path d="M10 8h12v3.5h-8v3h7v3.5h-7v3h8V24H10z" fill="#fff"/></svg>';

/**
 * The owner's web app: the stylesheet and icon, and one small Hono app per area over one kit (owner-kit.ts).
 * Every read and write goes through an operation with the owner as caller (`invoke`), so the pages
 * decide nothing about memory themselves. Forms carry CSRF tokens and removals ask first on a page
 * of their own, so everything works without the script. The consent screen is served by the OAuth door
 * (oauth/authorize.tsx) with the same pieces.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { activityRoutes } from './activity-routes';
import { appsRoutes } from './apps-routes';
import { factRoutes } from './fact-routes';
import { importRoutes } from './import-routes';
import { keyRoutes } from './key-routes';
import { ICON_PATH, STYLESHEET_PATH, stylesheet } from './layout';
import { memoryRoutes } from './memory-routes';
import { ownerKit, type WebDeps } from './owner-kit';
import { rulesRoutes } from './rules-routes';
import { searchRoutes } from './search-routes';
import { setupRoutes } from './setup-routes';
import { shareRoutes } from './share-routes';
import { signInRoutes } from './sign-in-routes';

const AREAS = [
  setupRoutes,
  signInRoutes,
  appsRoutes,
  keyRoutes,
  memoryRoutes,
  factRoutes,
  rulesRoutes,
  searchRoutes,
  shareRoutes,
  activityRoutes,
  importRoutes,
];

export function webRoutes(deps: WebDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.get(STYLESHEET_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(stylesheet, 200, { 'Content-Type': 'text/css; charset=utf-8' });
  });
  app.get(ICON_PATH, (c) => {
    c.header('Cache-Control', 'public, max-age=86400');
    c.header('X-Content-Type-Options', 'nosniff');
    return c.body(ICON, 200, { 'Content-Type': 'image/svg+xml' });
  });
  const kit = ownerKit(deps);
  for (const area of AREAS) app.route('/', area(kit));
  return app;
}

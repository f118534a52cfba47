/**
 * The owner's web app, one small Hono app per area over one kit (owner-kit.ts).
 * Every read and write goes through an operation with the owner as caller (`invoke`), so the pages
 * hold no rules of their own. Forms carry CSRF tokens and removals ask first on a page of their own,
 * so everything works without the script.
 */
import { Hono } from 'hono';
import type { AppEnv } from '../http/app-env';
import { appsRoutes } from './apps-routes';
import { activityRoutes } from './activity-routes';
import { factRoutes } from './fact-routes';
import { importRoutes } from './import-routes';
import { keyRoutes } from './key-routes';
import { memoryRoutes } from './memory-routes';
import { ownerKit } from './owner-kit';
import type { WebDeps } from './routes';
import { rulesRoutes } from './rules-routes';
import { searchRoutes } from './search-routes';
import { setupRoutes } from './setup-routes';
import { signInRoutes } from './sign-in-routes';
import { shareRoutes } from './share-routes';

export function ownerRoutes(deps: WebDeps): Hono<AppEnv> {
  const kit = ownerKit(deps);
  const app = new Hono<AppEnv>();
  for (const area of [setupRoutes, signInRoutes, appsRoutes, keyRoutes, memoryRoutes, factRoutes, rulesRoutes, searchRoutes, shareRoutes, activityRoutes, importRoutes]) app.route('/', area(kit));
  return app;
}

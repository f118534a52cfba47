/** The OAuth discovery documents. JSON always, CORS open (no credentials), as clients fetch them from pages. */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../http/app-env';
import type { Site } from '../site';
import { MCP_PATH, protectedResourceMetadata, RESOURCE_METADATA_PATH } from './metadata';

export function oauthRoutes(site: Site): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use('/.well-known/*', cors({ origin: '*' }));
  app.get(RESOURCE_METADATA_PATH, (c) => c.json(protectedResourceMetadata(site, `${site.baseUrl}${MCP_PATH}`)));
  app.get('/.well-known/oauth-protected-resource', (c) => c.json(protectedResourceMetadata(site, site.baseUrl)));
  return app;
}

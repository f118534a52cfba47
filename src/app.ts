/** Builds the Hono app: trace ids, the error envelope, REST, MCP, the OAuth door and the owner's web pages. */
import { Hono } from 'hono';
import { collectGarbageSoon } from './collect-garbage-soon';
import { refusalOf, ServiceError } from './errors';
import type { AppEnv } from './http/app-env';
import { errorResponse } from './http/envelope';
import { health } from './http/health';
import { requestBodyLimit } from './http/middleware/body-limit';
import { headerLimit } from './http/middleware/header-limit';
import { noRoute } from './http/no-route';
import { PasswordThrottle } from './http/middleware/password-throttle';
import { traceId } from './http/middleware/trace-id';
import { OPENAPI_PATH, openApiDocument } from './http/openapi';
import { restRoutes } from './http/rest';
import { sessionRoutes } from './http/session';
import { mcpRoutes } from './mcp/http';
import { type OAuthOptions, oauthRoutes } from './oauth/routes';
import type { Services } from './operations/operation';
import { MCP_PATHS, type Site } from './site';
import type { ImportRuns } from './web/import-runs';
import { IMPORT_PATH } from './web/paths';
import { webRoutes } from './web/routes';
import { FormTokens } from './web/forms';

export function createApp(services: Services, site: Site, oauth: OAuthOptions, imports: ImportRuns): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(traceId(services.log));
  // Each request's garbage is collected soon after it (collect-garbage-soon.ts): it kept the peak
  // under a flood of writes ~110 MiB lower.
  app.use(async (_c, next) => {
    await next();
    collectGarbageSoon();
  });
  app.use(headerLimit());
  const limit = requestBodyLimit();
  // The Import page's upload is streamed to disk under a limit of its own (web/import-routes.tsx).
  app.use((c, next) => (c.req.method === 'POST' && c.req.path === IMPORT_PATH ? next() : limit(c, next)));
  app.get('/healthz', health(services, site));
  let openapi: object | null = null; // built on first request: the site is known only once listening
  app.get(OPENAPI_PATH, (c) => {
    openapi ??= openApiDocument(site);
    return c.json(openapi);
  });
  const forms = new FormTokens(services.store);
  // The forms' secret is read from the store once, before the first request (see FormTokens.ready).
  app.use(async (_c, next) => {
    await forms.ready();
    await next();
  });
  const passwords = new PasswordThrottle(services.clock, site);
  app.route('/', oauthRoutes(services, site, forms, oauth));
  app.route('/', webRoutes({ services, site, forms, passwords, imports }));
  app.route('/', mcpRoutes(services, site));
  app.route('/', sessionRoutes(services, site, passwords));
  app.route('/', restRoutes(services, site));
  app.notFound(noRoute(app, MCP_PATHS));
  app.onError((err, c) => {
    const refusal = refusalOf(err);
    if (refusal) return errorResponse(c, refusal);
    // Anything else is our fault: log it with the trace id, answer without internals.
    services.log.error('unhandled error', {
      trace_id: c.get('traceId'),
      error: String(err),
      stack: (err as Error).stack,
    });
    return errorResponse(
      c,
      new ServiceError('internal', 'Something went wrong on the server. Quote the trace_id when reporting it.'),
    );
  });
  return app;
}

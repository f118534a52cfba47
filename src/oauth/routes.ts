/**
 * The OAuth door: discovery documents, registration, authorization (the consent screen), token and
 * revocation. Discovery, registration, token and revocation are JSON with open CORS (any origin,
 * no credentials), since apps call them from web pages; authorization is a page for the owner.
 */
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import type { AppEnv } from '../http/app-env';
import { clientAddress } from '../http/client-address';
import type { Services } from '../operations/operation';
import { RateLimiter } from '../operations/calls/rate-limiter';
import { MCP_PATH, type Site } from '../site';
import type { FormTokens } from '../web/forms';
import { authorizeHandlers } from './authorize';
import { ClientMetadataResolver, type ClientMetadataOptions } from './client-metadata';
import { OAuthClients } from './clients';
import { oauthError } from './errors';
import {
  AUTHORIZATION_SERVER_METADATA_PATH,
  authorizationServerMetadata,
  AUTHORIZE_PATH,
  protectedResourceMetadata,
  REGISTER_PATH,
  RESOURCE_METADATA_PATH,
  REVOKE_PATH,
  ROOT_RESOURCE_METADATA_PATH,
  TOKEN_PATH,
} from './metadata';
import { registerClient } from './register';
import { tokenHandlers } from './token';

export interface OAuthOptions {
  /** Consent token lifetime (DECISIONS.md: 30 days, ENGRAM_CONSENT_TTL_DAYS). */
  consentTtlDays: number;
  /** How client ID metadata documents are fetched: the address guard's setting and test seams. */
  clientMetadata: ClientMetadataOptions;
  /** Registrations a minute from one source address. */
  registrationsPerMin?: number;
}

/** Enough for a client that registers twice on every connect, many times over; a flood from one address is cut. */
const REGISTRATIONS_PER_MIN = 30;

const openCors = cors({
  origin: '*',
  allowMethods: ['GET', 'POST', 'OPTIONS'],
  allowHeaders: ['Content-Type', 'Authorization', 'MCP-Protocol-Version'],
  maxAge: 86400,
});

export function oauthRoutes(services: Services, site: Site, forms: FormTokens, options: OAuthOptions): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  const resolver = new ClientMetadataResolver(services.store, services.clock, services.log, options.clientMetadata);
  const clients = new OAuthClients(services.store, services.clock, resolver);
  const limiter = new RateLimiter(services.clock, options.registrationsPerMin ?? REGISTRATIONS_PER_MIN);
  const authorize = authorizeHandlers({ services, site, forms, clients, consentTtlDays: options.consentTtlDays });
  const token = tokenHandlers({ services, site, clients, consentTtlDays: options.consentTtlDays });

  // Every /.well-known answer is JSON with open CORS, the 404 of a document we do not serve included (app.notFound).
  app.use('/.well-known/*', openCors);
  for (const path of [REGISTER_PATH, TOKEN_PATH, REVOKE_PATH]) app.use(path, openCors);

  app.get(RESOURCE_METADATA_PATH, (c) => c.json(protectedResourceMetadata(site, `${site.baseUrl}${MCP_PATH}`)));
  app.get(ROOT_RESOURCE_METADATA_PATH, (c) => c.json(protectedResourceMetadata(site, site.baseUrl)));
  app.get(AUTHORIZATION_SERVER_METADATA_PATH, (c) => c.json(authorizationServerMetadata(site)));

  app.post(REGISTER_PATH, async (c) => {
    try {
      limiter.take(`register:${clientAddress(c, site)}`);
    } catch {
      c.header('Retry-After', '60');
      return oauthError(c, 429, 'rate_limited', 'Too many registrations from this address; try again in a minute.');
    }
    let body: unknown;
    try {
      body = JSON.parse(await c.req.text());
    } catch {
      return oauthError(c, 400, 'invalid_client_metadata', 'The registration request must be a JSON object.');
    }
    const result = await registerClient(services.store, services.clock, body);
    if (!result.ok) return oauthError(c, 400, result.error, result.description);
    services.log.info('app registered', { client_id: result.body.client_id, client_name: result.body.client_name });
    c.header('Cache-Control', 'no-store');
    return c.json(result.body, 201);
  });

  app.get(AUTHORIZE_PATH, authorize.get);
  app.post(AUTHORIZE_PATH, authorize.post);
  app.post(TOKEN_PATH, token.token);
  app.post(REVOKE_PATH, token.revoke);
  return app;
}

/**
 * The /mcp-http door: Streamable HTTP, stateless (a fresh server and transport per POST, no
 * Mcp-Session-Id), every POST authenticated. GET and DELETE are 405; batches are 400.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Context as HonoContext, Hono } from 'hono';
import { AuthError, authenticate } from '../auth/credentials';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { envelope } from '../http/envelope';
import { bearerToken } from '../http/middleware/bearer';
import { type Context, invoke, isOffered, type Services } from '../operations/operation';
import { MCP_PATH, RESOURCE_METADATA_PATH, resourceOf } from '../oauth/metadata';
import type { Site } from '../site';
import { findTool, mcpServerFor } from './server';

export function mcpRoutes(services: Services, site: Site): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.on(['GET', 'DELETE'], MCP_PATH, (c) => {
    c.header('Allow', 'POST');
    return c.json(rpcError(null, -32000, 'Method not allowed: this server is stateless; send JSON-RPC with POST.'), 405);
  });

  app.post(MCP_PATH, async (c) => {
    // DNS-rebinding defence: a browser page from another origin may not drive the memory.
    const origin = c.req.header('Origin');
    if (origin && !site.origins.has(origin)) return c.json(rpcError(null, -32000, `Origin ${origin} is not allowed.`), 403);

    const token = bearerToken(c.req.header('Authorization'));
    let caller;
    try {
      if (!token) throw new AuthError('unknown');
      caller = authenticate(services.store, services.clock, token, { audience: resourceOf(site) });
    } catch (err) {
      if (err instanceof AuthError) return unauthorized(c, site, token ? err.message : 'A bearer credential is required.');
      throw err;
    }
    const ctx: Context = { ...services, caller, traceId: c.get('traceId') };

    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(rpcError(null, -32700, 'Parse error: the body is not valid JSON.'), 400);
    }
    if (Array.isArray(body)) return c.json(rpcError(null, -32600, 'JSON-RPC batches are not supported.'), 400);

    const refusal = await refuseToolOutsideGrant(ctx, body);
    if (refusal) return c.json(envelope(refusal, ctx.traceId), 403);

    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServerFor(ctx);
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: body });
    } finally {
      void server.close();
    }
  });

  return app;
}

/**
 * A call of a tool the credential does not hold is refused at the HTTP level with 403 and the
 * envelope, without an `insufficient_scope` challenge: no re-authorization can grant it, and
 * clients loop on step-up. `invoke` makes the refusal, so it counts in the key's usage.
 */
async function refuseToolOutsideGrant(ctx: Context, body: unknown): Promise<ServiceError | null> {
  const msg = body as { method?: unknown; params?: { name?: unknown; arguments?: unknown } };
  if (msg?.method !== 'tools/call' || typeof msg.params?.name !== 'string') return null;
  const args = (msg.params.arguments ?? {}) as Record<string, unknown>;
  const op = findTool(msg.params.name, args);
  if (!op || isOffered(op, ctx.caller)) return null;
  return invoke(op, ctx, args).then(
    () => null,
    (err) => (err instanceof ServiceError ? err : null),
  );
}

/** 401 as RFC 6750 and the contract say, for a missing bearer and a bad one alike. */
function unauthorized(c: HonoContext, site: Site, description: string): Response {
  c.header('WWW-Authenticate', `Bearer error="invalid_token", resource_metadata="${site.baseUrl}${RESOURCE_METADATA_PATH}"`);
  return c.json({ error: 'invalid_token', error_description: description }, 401);
}

const rpcError = (id: string | number | null, code: number, message: string) => ({ jsonrpc: '2.0', id, error: { code, message } });

/**
 * The /mcp-http door: Streamable HTTP, stateless (a fresh server and transport per POST, no
 * Mcp-Session-Id), every POST authenticated and counted by the per-credential limiter. GET and
 * DELETE are 405; batches are 400. CORS is answered for the allowed browser origins only.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { type Context as HonoContext, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Caller } from '../auth/caller';
import { AuthError, authenticate } from '../auth/credentials';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { envelope } from '../http/envelope';
import { bearerToken } from '../http/middleware/bearer';
import { type Context, contextFor, countRequest, invoke, isOffered, type Services } from '../operations/operation';
import { MCP_PATH, RESOURCE_METADATA_PATH, resourceOf } from '../oauth/metadata';
import type { Site } from '../site';
import { findTool, mcpServerFor } from './server';

export function mcpRoutes(services: Services, site: Site): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  app.use(MCP_PATH, corsForAllowedOrigins(site));

  app.on(['GET', 'DELETE'], MCP_PATH, (c) => {
    c.header('Allow', 'POST');
    return c.json(rpcError(null, -32000, 'Method not allowed: this server is stateless; send JSON-RPC with POST.'), 405);
  });

  app.post(MCP_PATH, async (c) => {
    // DNS-rebinding defence: a browser page from another origin may not drive the memory.
    const origin = c.req.header('Origin');
    if (origin && !site.origins.has(origin)) return c.json(rpcError(null, -32000, `Origin ${origin} is not allowed.`), 403);

    const token = bearerToken(c.req.header('Authorization'));
    let caller: Caller;
    try {
      if (!token) throw new AuthError('unknown');
      caller = await authenticate(services.store, services.clock, token, { audience: resourceOf(site) });
    } catch (err) {
      if (err instanceof AuthError) return unauthorized(c, site, token ? err.message : 'A bearer credential is required.');
      throw err;
    }
    const ctx = contextFor(services, caller, c.get('traceId'));

    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      return c.json(rpcError(null, -32700, 'Parse error: the body is not valid JSON.'), 400);
    }
    if (Array.isArray(body)) return c.json(rpcError(null, -32600, 'JSON-RPC batches are not supported.'), 400);

    const overLimit = countUnlessOperationWill(ctx, body);
    if (overLimit) return c.json(envelope(overLimit, ctx.traceId), 429);

    const refusal = await refuseToolOutsideGrant(ctx, body);
    if (refusal) return c.json(envelope(refusal, ctx.traceId), 403);

    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    const server = mcpServerFor(ctx);
    await server.connect(transport);
    try {
      return withRequestId(await transport.handleRequest(c.req.raw, { parsedBody: body }), body);
    } finally {
      void server.close();
    }
  });

  return app;
}

/** What a browser may send and read on /mcp-http, from an allowed origin. */
const CORS_METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];
const CORS_REQUEST_HEADERS = ['Authorization', 'Content-Type', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID', 'Idempotency-Key'];
const CORS_EXPOSED_HEADERS = ['WWW-Authenticate', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'X-Trace-Id'];

/**
 * CORS for the origins in `site.origins` (the server's own and ENGRAM_ALLOWED_ORIGINS), and no
 * CORS header at all for any other, so the browser refuses it; its preflight is 403 like its POST.
 * Without credentials: the bearer is sent explicitly, never a cookie.
 */
function corsForAllowedOrigins(site: Site): MiddlewareHandler<AppEnv> {
  const allowed = cors({
    origin: (origin) => origin,
    allowMethods: CORS_METHODS,
    allowHeaders: CORS_REQUEST_HEADERS,
    exposeHeaders: CORS_EXPOSED_HEADERS,
    maxAge: 600,
  });
  return async (c, next) => {
    const origin = c.req.header('Origin');
    if (origin && site.origins.has(origin)) return allowed(c, next);
    c.header('Vary', 'Origin', { append: true });
    if (origin && c.req.method === 'OPTIONS') return c.json(rpcError(null, -32000, `Origin ${origin} is not allowed.`), 403);
    await next();
  };
}

/**
 * Counts a request in the per-credential limiter unless `invoke` will (a call of a known tool: it
 * also knows which tools the contract exempts), so initialize, tools/list, ping and notifications
 * count too. Over the limit: the 429 envelope, at the HTTP level like the 403 below, since only a
 * tool call has a result to carry it in.
 */
function countUnlessOperationWill(ctx: Context, body: unknown): ServiceError | null {
  const msg = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (msg?.method === 'tools/call' && typeof msg.params?.name === 'string' && findTool(msg.params.name, {})) return null;
  try {
    countRequest(ctx);
    return null;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

/**
 * The SDK's transport answers its own errors (a bad MCP-Protocol-Version, an invalid message)
 * with `"id": null`; JSON-RPC wants the request's id wherever it could be read, so it is put back.
 */
async function withRequestId(res: Response, body: unknown): Promise<Response> {
  const id = (body as { id?: unknown } | null)?.id;
  if (res.status < 400 || (typeof id !== 'string' && typeof id !== 'number')) return res;
  if (!res.headers.get('content-type')?.includes('application/json')) return res;
  const answer = (await res.clone().json().catch(() => null)) as { id?: unknown; error?: unknown } | null;
  if (answer?.id !== null || !answer.error) return res;
  return new Response(JSON.stringify({ ...answer, id }), { status: res.status, statusText: res.statusText, headers: res.headers });
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

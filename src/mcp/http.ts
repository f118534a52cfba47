/**
 * The /mcp-http door: Streamable HTTP, stateless, in both protocol eras on the one endpoint. A
 * request carrying the 2026-07-28 `_meta` envelope is served by the SDK's `createMcpHandler`
 * (`server/discover`, the request headers checked against the body, the caching fields); any other
 * is the 2025 handshake era, served as before by a fresh transport answering JSON. Either way the
 * request is first checked here, once, for both: Origin, the credential (401), the per-credential
 * limiter (429), the shape of a tools/call (-32602) and a tool outside the grant (403). Nothing is
 * kept between requests, so any replica behind a load balancer can answer any of them.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { type Context as HonoContext, Hono, type MiddlewareHandler } from 'hono';
import { cors } from 'hono/cors';
import type { Caller } from '../auth/caller';
import { AuthError, authenticate } from '../auth/credentials';
import { ServiceError } from '../errors';
import type { AppEnv } from '../http/app-env';
import { bearerToken } from '../http/middleware/bearer';
import { type Context, contextFor, countRequest, invoke, isOffered, type Services } from '../operations/operation';
import { RESOURCE_METADATA_PATH } from '../oauth/metadata';
import { MCP_PATHS, resourceOf, type Site } from '../site';
import { REFUSED, type RpcId, refusalBody, rpcError } from './rpc-errors';
import { mcpServerFor } from './server';
import { findTool, toolCallProblem } from './tools';

/**
 * The revisions of the per-request era: what `server/discover` lists and so what an unsupported
 * version is told (the SDK's own answers say the same). The handshake revisions are negotiated by
 * `initialize`, as before, and are never named to a client that sends `_meta`.
 */
const MODERN_VERSIONS = ['2026-07-28'];
/** Every revision this endpoint reads in MCP-Protocol-Version. */
const KNOWN_VERSIONS = new Set([...MODERN_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS]);

export function mcpRoutes(services: Services, site: Site): Hono<AppEnv> {
  const app = new Hono<AppEnv>();
  // The SDK builds the server of a 2026-07-28 request from the request object; the context made
  // for it below travels with that object, and is gone with it.
  const contexts = new WeakMap<Request, Context>();
  const modern = createMcpHandler(({ requestInfo }) => mcpServerFor(contexts.get(requestInfo!)!), {
    legacy: 'reject',
    onerror: (err) => services.log.debug('mcp request refused', { error: err.message }),
  });
  for (const path of MCP_PATHS) app.use(path, corsForAllowedOrigins(site));

  app.on(['GET', 'DELETE'], MCP_PATHS, (c) => {
    c.header('Allow', 'POST');
    return c.json(
      rpcError(null, -32000, 'Method not allowed: this server is stateless; send JSON-RPC with POST.'),
      405,
    );
  });

  app.on('POST', MCP_PATHS, async (c) => {
    // DNS-rebinding defence: a browser page from another origin may not drive the memory.
    const origin = c.req.header('Origin');
    if (origin && !site.origins.has(origin)) {
      const id = idOf(await c.req.json().catch(() => null));
      return c.json(rpcError(id, REFUSED, `Origin ${origin} is not allowed.`), 403);
    }

    const token = bearerToken(c.req.header('Authorization'));
    let caller: Caller;
    try {
      if (!token) throw new AuthError('unknown');
      caller = await authenticate(services.store, services.clock, token, { audience: resourceOf(site) });
    } catch (err) {
      if (err instanceof AuthError)
        return unauthorized(c, site, token ? err.message : 'A bearer credential is required.');
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

    const version = c.req.header('MCP-Protocol-Version');
    if (version !== undefined && !KNOWN_VERSIONS.has(version)) {
      return c.json(
        rpcError(idOf(body), -32022, `Unsupported protocol version: ${version}`, {
          supported: MODERN_VERSIONS,
          requested: version,
        }),
        400,
      );
    }

    const overLimit = await countUnlessOperationWill(ctx, body);
    if (overLimit) return c.json(refusalBody(idOf(body), overLimit, ctx.traceId), 429);

    const call = body as { method?: unknown; params?: unknown } | null;
    if (call?.method === 'tools/call') {
      const problem = toolCallProblem(call.params);
      if (problem) return c.json(rpcError(idOf(body), -32602, `Invalid params: ${problem}`));
    }

    const refusal = await refuseToolOutsideGrant(ctx, body);
    if (refusal) return c.json(refusalBody(idOf(body), refusal, ctx.traceId), 403);

    if (await isLegacyRequest(c.req.raw, body)) return withRequestId(await handshakeEra(ctx, c.req.raw, body), body);
    // The SDK would open an event stream and keep it open, on which nothing is ever sent: no list or
    // resource of Engram's is announced when it changes (a stateless server has no stream to do it).
    if (call?.method === 'subscriptions/listen') {
      const message =
        'Method not found: subscriptions/listen. Engram sends no notifications (no list or resource changes are announced), so there is nothing to listen for.';
      return c.json(rpcError(idOf(body), ProtocolErrorCode.MethodNotFound, message), 404);
    }
    contexts.set(c.req.raw, ctx);
    return withRequestId(await modern.fetch(c.req.raw, { parsedBody: body }), body);
  });

  return app;
}

/**
 * A request of the 2025 handshake era (initialize, or a request without the 2026-07-28 envelope):
 * a fresh server and transport, no session id, answered as JSON, never an event stream.
 */
async function handshakeEra(ctx: Context, request: Request, body: unknown): Promise<Response> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  const server = mcpServerFor(ctx);
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { parsedBody: body });
  } finally {
    void server.close();
  }
}

/** What a browser may send and read on /mcp-http, from an allowed origin. */
const CORS_METHODS = ['GET', 'POST', 'DELETE', 'OPTIONS'];
const CORS_REQUEST_HEADERS = [
  'Authorization',
  'Content-Type',
  'Mcp-Protocol-Version',
  'Mcp-Method',
  'Mcp-Name',
  'Mcp-Session-Id',
  'Last-Event-ID',
  'Idempotency-Key',
];
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
    if (origin && c.req.method === 'OPTIONS')
      return c.json(rpcError(null, REFUSED, `Origin ${origin} is not allowed.`), 403);
    await next();
  };
}

/**
 * Counts a request in the per-credential limiter unless `invoke` will (a call of a known tool: it
 * also knows which tools the contract exempts, docs/protocol.md), so initialize, server/discover, tools/list, ping
 * and notifications count too. Over the limit: 429 with the refusal in JSON-RPC, like the 403
 * below, since only a tool call has a result to carry it in.
 */
async function countUnlessOperationWill(ctx: Context, body: unknown): Promise<ServiceError | null> {
  const msg = body as { method?: unknown; params?: { name?: unknown } } | null;
  if (msg?.method === 'tools/call' && typeof msg.params?.name === 'string' && findTool(msg.params.name, {}))
    return null;
  try {
    await countRequest(ctx);
    return null;
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
}

/** The request's JSON-RPC id when it has one a response can carry (a string or a number). */
function idOf(body: unknown): RpcId {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}

/**
 * The SDK's transport answers some of its own errors (a bad Accept header, an invalid message)
 * with `"id": null`; JSON-RPC wants the request's id wherever it could be read, so it is put back.
 */
async function withRequestId(res: Response, body: unknown): Promise<Response> {
  const id = idOf(body);
  if (res.status < 400 || id === null) return res;
  if (!res.headers.get('content-type')?.includes('application/json')) return res;
  const answer = (await res
    .clone()
    .json()
    .catch(() => null)) as { id?: unknown; error?: unknown } | null;
  if (!answer?.error || (answer.id !== null && answer.id !== undefined)) return res;
  return new Response(JSON.stringify({ ...answer, id }), {
    status: res.status,
    statusText: res.statusText,
    headers: res.headers,
  });
}

/**
 * A call of a tool the credential does not hold is refused at the HTTP level with 403 and the
 * refusal in JSON-RPC (rpc-errors.ts), without an `insufficient_scope` challenge: no re-authorization can grant it, and
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

/** 401 as RFC 6750 and the contract (docs/protocol.md, "Errors") say, for a missing bearer and a bad one alike. */
function unauthorized(c: HonoContext, site: Site, description: string): Response {
  c.header(
    'WWW-Authenticate',
    `Bearer error="invalid_token", resource_metadata="${site.baseUrl}${RESOURCE_METADATA_PATH}"`,
  );
  return c.json({ error: 'invalid_token', error_description: description }, 401);
}

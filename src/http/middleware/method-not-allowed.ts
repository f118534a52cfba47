/**
 * 405 in the envelope, with `Allow`, for a method a path has no route for (PUT /v1/documents),
 * answered before any credential is asked for: the method is wrong whoever asks. The table comes
 * from the app's own routes on the first request, so it cannot drift from them. OPTIONS is left
 * to the CORS middleware and the routes, and paths in `except` to their door (MCP answers its
 * own 405s in JSON-RPC's form). A method outside Bun's parser's table (FOO) never
 * reaches the app: Bun 1.4 closes the connection unanswered (oven-sh/bun#6556; docs/decisions.md).
 */
import type { Hono, MiddlewareHandler } from 'hono';
import { ServiceError } from '../../errors';
import type { AppEnv } from '../app-env';
import { errorResponse } from '../envelope';

interface RouteMethods {
  pattern: RegExp;
  methods: Set<string>;
}

/** Each route's path as a pattern (`:name` one segment) with its methods; `use` middleware (method ALL) is not a route. */
function routeTable(routes: Hono<AppEnv>['routes']): RouteMethods[] {
  const byPath = new Map<string, Set<string>>();
  for (const { path, method } of routes) {
    if (method === 'ALL') continue;
    if (!byPath.has(path)) byPath.set(path, new Set());
    byPath.get(path)!.add(method);
    if (method === 'GET') byPath.get(path)!.add('HEAD'); // Hono answers HEAD with the GET route
  }
  const literal = (s: string) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  return [...byPath].map(([path, methods]) => ({
    pattern: new RegExp(`^${path.split('/').map((part) => (part.startsWith(':') ? '[^/]+' : literal(part).replace(/\*/g, '.*'))).join('/')}$`),
    methods,
  }));
}

export function methodNotAllowed(app: Hono<AppEnv>, except: string[] = []): MiddlewareHandler<AppEnv> {
  let table: RouteMethods[] | null = null;
  return async (c, next) => {
    if (c.req.method === 'OPTIONS' || except.includes(c.req.path)) return next();
    table ??= routeTable(app.routes);
    const allowed = new Set(table.filter((r) => r.pattern.test(c.req.path)).flatMap((r) => [...r.methods]));
    if (allowed.size === 0 || allowed.has(c.req.method)) return next();
    const allow = [...allowed].sort();
    const res = errorResponse(c, new ServiceError('method_not_allowed', `${c.req.path} does not answer ${c.req.method}; it answers ${allow.join(', ')}.`, { allow }));
    res.headers.set('Allow', allow.join(', '));
    return res;
  };
}

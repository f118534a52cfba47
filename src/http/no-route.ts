/**
 * What no route answers: 405 `method_not_allowed` in the envelope, with `Allow`, when the path has
 * routes for other methods (PUT /v1/documents), 404 `not_found` otherwise. It runs where Hono finds
 * no route, so what guards a path answers first: on /v1 a missing or refused credential is still
 * 401 or 403, whatever the method. The table comes from the app's own routes on first use, so it
 * cannot drift from them. Paths in `except` are left to their door (MCP answers its own 405s in
 * JSON-RPC's form). A method outside Bun's parser's table (FOO) never reaches the app: Bun 1.4
 * closes the connection unanswered (oven-sh/bun#6556; docs/decisions.md).
 */
import type { Hono, NotFoundHandler } from 'hono';
import { ServiceError } from '../errors';
import type { AppEnv } from './app-env';
import { errorResponse } from './envelope';

interface RouteMethods {
  pattern: RegExp;
  methods: Set<string>;
}

/**
 * Each route's path as a pattern (`:name` one segment) with its methods; `use` middleware (method
 * ALL) is not a route.
 */
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
    pattern: new RegExp(
      `^${path
        .split('/')
        .map((part) => (part.startsWith(':') ? '[^/]+' : literal(part).replace(/\*/g, '.*')))
        .join('/')}$`,
    ),
    methods,
  }));
}

export function noRoute(app: Hono<AppEnv>, except: string[] = []): NotFoundHandler<AppEnv> {
  let table: RouteMethods[] | null = null;
  return (c) => {
    table ??= routeTable(app.routes);
    const allowed = except.includes(c.req.path)
      ? new Set<string>()
      : new Set(table.filter((r) => r.pattern.test(c.req.path)).flatMap((r) => [...r.methods]));
    if (allowed.size === 0)
      return errorResponse(c, new ServiceError('not_found', `No route ${c.req.method} ${c.req.path}.`));
    const allow = [...allowed].sort();
    const res = errorResponse(
      c,
      new ServiceError(
        'method_not_allowed',
        `${c.req.path} does not answer ${c.req.method}; it answers ${allow.join(', ')}.`,
        { allow },
      ),
    );
    res.headers.set('Allow', allow.join(', '));
    return res;
  };
}

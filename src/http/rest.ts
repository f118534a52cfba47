/**
 * The /v1 routes as a table: each names its operation and where its input comes from (path
 * parameters by name, the listed query parameters, the JSON body for POST and PATCH). The same
 * table drives the OpenAPI document, so the two cannot drift.
 */
import { type Context, Hono } from 'hono';
import { malformed } from '../errors';
import * as ops from '../operations';
import { idempotent } from '../operations/calls/idempotency';
import { contextFor, invoke, type Operation, type Services } from '../operations/operation';
import type { AppEnv } from './app-env';
import type { Site } from '../site';
import { requireBearer } from './middleware/bearer';

type QueryType = 'string' | 'boolean' | 'integer';

/** Created, accepted (a document queued for learning) or plainly answered. */
type SuccessStatus = 200 | 201 | 202;

export interface RestRoute {
  method: 'get' | 'post' | 'patch' | 'delete';
  /** OpenAPI-style path: `{name}` segments become input fields of that name. */
  path: string;
  op: Operation;
  query?: Record<string, QueryType>;
  /** The success status (200 when absent), or one per value of the result's `status` field. */
  status?: SuccessStatus | Record<string, SuccessStatus>;
}

export const REST_ROUTES: RestRoute[] = [
  { method: 'get', path: '/v1/containers', op: ops.listContainers },
  { method: 'post', path: '/v1/search', op: ops.searchMemories },
  { method: 'get', path: '/v1/profile', op: ops.getProfile, query: { q: 'string' } },
  {
    method: 'get',
    path: '/v1/documents',
    op: ops.listDocuments,
    query: { container: 'string', limit: 'integer', cursor: 'string' },
  },
  { method: 'get', path: '/v1/documents/{document_id}', op: ops.getDocument },
  { method: 'get', path: '/v1/rules', op: ops.memoryRules },
  // Held only by an agent share; every other caller is refused with 403, unrecorded.
  { method: 'post', path: '/v1/ask', op: ops.askAgent },
  { method: 'post', path: '/v1/memories', op: ops.addMemory, status: 201 },
  { method: 'post', path: '/v1/documents', op: ops.addDocument, status: { queued: 202, exists: 200 } },
  { method: 'delete', path: '/v1/documents/{document_id}', op: ops.deleteDocument, query: { confirm: 'boolean' } },
  {
    method: 'delete',
    path: '/v1/memories/{memory_id}',
    op: ops.forgetMemory,
    query: { container: 'string', confirm: 'boolean' },
  },
  // The owner's session only.
  { method: 'post', path: '/v1/containers', op: ops.createContainer, status: 201 },
  { method: 'patch', path: '/v1/containers/{container_id}', op: ops.updateContainer },
  { method: 'delete', path: '/v1/containers/{container_id}', op: ops.deleteContainer, query: { confirm: 'boolean' } },
  { method: 'post', path: '/v1/memories/{memory_id}/confirm', op: ops.confirmFact },
  { method: 'get', path: '/v1/api-keys', op: ops.listKeys },
  { method: 'post', path: '/v1/api-keys', op: ops.createKey, status: 201 },
  { method: 'patch', path: '/v1/api-keys/{key_id}', op: ops.updateKey },
  { method: 'get', path: '/v1/api-keys/{key_id}/usage', op: ops.keyUsage },
  // A share's id is accepted too: shares have ids of the same form.
  {
    method: 'get',
    path: '/v1/api-keys/{key_id}/access-log',
    op: ops.keyAccessLog,
    query: { cursor: 'string', limit: 'integer' },
  },
  { method: 'patch', path: '/v1/exposures/{key_id}/views', op: ops.setKeyContainers },
  { method: 'delete', path: '/v1/exposures/{key_id}', op: ops.revokeKey },
  { method: 'post', path: '/v1/rules', op: ops.addRule, status: 201 },
  { method: 'delete', path: '/v1/rules/{rule_id}', op: ops.deleteRule },
  { method: 'get', path: '/v1/connected-apps', op: ops.listConnectedApps },
  { method: 'delete', path: '/v1/connected-apps/{client_id}', op: ops.disconnectApp },
  {
    method: 'get',
    path: '/v1/connected-apps/{client_id}/access-log',
    op: ops.appAccessLog,
    query: { cursor: 'string', limit: 'integer' },
  },
  { method: 'get', path: '/v1/shares', op: ops.listShares },
  { method: 'post', path: '/v1/shares', op: ops.createShare, status: 201 },
  // `key_id` as on /v1/exposures/{key_id}: every token the owner hands out has an id of that form.
  { method: 'delete', path: '/v1/shares/{key_id}', op: ops.revokeShare },
];

/** Mounts every route of the table behind the bearer check. */
export function restRoutes(services: Services, site: Site): Hono<AppEnv> {
  const v1 = new Hono<AppEnv>();
  v1.use('/v1/*', requireBearer(services, site));
  for (const route of REST_ROUTES) {
    v1.on(route.method.toUpperCase(), route.path.replace(/\{(\w+)\}/g, ':$1'), async (c) => {
      const ctx = contextFor(services, c.get('caller'), c.get('traceId'));
      const once = idempotent(route.op, c.req.header('Idempotency-Key'), 'Idempotency-Key');
      const result = await invoke(once.op, ctx, () => inputOf(c, route));
      // A replay's status follows from its remembered body, so it is the first answer's status too.
      if (once.replayed) c.header('Idempotent-Replayed', 'true');
      return c.json(result as object, successStatus(route, result));
    });
  }
  return v1;
}

function successStatus(route: RestRoute, result: unknown): SuccessStatus {
  if (typeof route.status !== 'object') return route.status ?? 200;
  return route.status[(result as { status: string }).status] ?? 200;
}

async function inputOf(c: Context, route: RestRoute): Promise<Record<string, unknown>> {
  const input: Record<string, unknown> = route.method === 'post' || route.method === 'patch' ? await jsonBody(c) : {};
  for (const [name, type] of Object.entries(route.query ?? {})) {
    const value = c.req.query(name);
    if (value !== undefined) input[name] = fromQuery(value, type);
  }
  Object.assign(input, c.req.param());
  return input;
}

/** The request body as a JSON object; anything else is 422 `validation`. */
export async function jsonBody(c: Context): Promise<Record<string, unknown>> {
  const raw = await c.req.text();
  if (!raw.trim()) return {};
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    throw malformed('The body is not valid JSON.', { fields: ['(body)'] });
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw malformed('The body must be a JSON object.', { fields: ['(body)'] });
  return body as Record<string, unknown>;
}

/** Query strings are text: booleans and integers are read here; anything else stays text for the schema to refuse. */
function fromQuery(value: string, type: QueryType): unknown {
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  if (type === 'integer' && /^-?\d{1,15}$/.test(value)) return Number(value);
  return value;
}

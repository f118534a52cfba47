/**
 * The OpenAPI 3.1 document, generated from the route table and the operations' zod schemas at
 * start: never written by hand, so it cannot drift from what the server does.
 */
import { z } from 'zod';
import pkg from '../../package.json' with { type: 'json' };
import { isGuarded } from '../operations/calls/idempotency';
import { ErrorEnvelope } from '../operations/schemas';
import type { Site } from '../site';
import { REST_ROUTES, type RestRoute } from './rest';
import { SessionToken, SignedOut, SignIn } from './session';

export const OPENAPI_PATH = '/plugin/openapi/agent-protocol.json';

type Json = Record<string, unknown>;

const ERROR_STATUSES: Record<string, string> = {
  400: 'A rule refused the request (`validation`).',
  401: 'No bearer credential.',
  403: 'The credential may not do this (`unauthorized`).',
  404: 'No such id or route (`not_found`).',
  405: 'The path does not answer this method (`method_not_allowed`); `Allow` and `details.allow` name the methods it does.',
  409: 'The write conflicts with what is stored (`conflict`).',
  422: 'Malformed input (`validation`), or no model for a turn (`capability_unavailable`).',
  429: 'Too many requests on this credential (`rate_limited`).',
  500: 'Server error (`internal`).',
  503: 'The database does not answer (`unavailable`): nothing was carried out; retry shortly.',
  507: "The server's storage is full (`storage_full`): the write was not saved; retry once space is freed.",
};

/** Collects the named schemas that zod emits as `$defs` into `components.schemas`. */
class SchemaSet {
  readonly components: Json = {};

  of(schema: z.ZodType, io: 'input' | 'output'): Json {
    const { $schema: _, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Json;
    for (const [id, def] of Object.entries(($defs ?? {}) as Json)) this.components[id] = relink(def);
    return relink(rest);
  }
}

const relink = (value: unknown): Json =>
  JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/'));

/** A query or path field's schema without its optional/null wrappers: query strings cannot be null. */
function bare(field: z.ZodType): z.ZodType {
  let f = field;
  while (f instanceof z.ZodOptional || f instanceof z.ZodNullable) f = f.unwrap() as z.ZodType;
  return f;
}

/** The header that makes a write safe to retry (src/operations/calls/idempotency.ts), on every write of the tool table. */
const IDEMPOTENCY_KEY_HEADER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Makes a retry of this write safe: a repeat with the same key and the same request, by the same credential within 24 hours, ' +
    'is answered with the first answer (same status and body, with `Idempotent-Replayed: true`) and not carried out again. ' +
    'The same key with another request, or while the first attempt still runs, is 409 `conflict`. Only a success is remembered.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[ -~]+$' },
};

const IDEMPOTENT_REPLAYED = {
  'Idempotent-Replayed': {
    description: '`true` when the answer is the remembered first answer to this Idempotency-Key.',
    schema: { type: 'string', enum: ['true'] },
  },
};

const IDEMPOTENT_CONFLICT =
  'The Idempotency-Key was used for another request (`details.reason` `key_reused`; not retryable), its first attempt is still running ' +
  '(`in_flight`; retryable), or the server stopped while it ran (`interrupted`; not retryable).';

function operationFor(route: RestRoute, schemas: SchemaSet): Json {
  const shape = (route.op.input as z.ZodObject).shape as Record<string, z.ZodType>;
  const pathNames = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const queryNames = Object.keys(route.query ?? {});
  const parameters = [
    ...pathNames.map((name) => ({ name, in: 'path', required: true, schema: schemas.of(bare(shape[name]!), 'input') })),
    ...queryNames.map((name) => ({
      name,
      in: 'query',
      required: false,
      description: shape[name]!.description,
      schema: schemas.of(bare(shape[name]!), 'input'),
    })),
    ...(isGuarded(route.op) ? [IDEMPOTENCY_KEY_HEADER] : []),
  ];
  const hasBody = route.method === 'post' || route.method === 'patch';
  const bodySchema = (route.op.input as z.ZodObject).omit(Object.fromEntries(pathNames.map((n) => [n, true])) as never);
  const statuses = typeof route.status === 'object' ? [...new Set(Object.values(route.status))] : [route.status ?? 200];
  const output = schemas.of(route.op.output, 'output');
  return {
    operationId: route.op.name,
    'x-tool-name': route.op.name,
    summary: route.op.description,
    tags: [route.op.access === 'owner' ? 'owner' : 'tools'],
    ...(parameters.length ? { parameters } : {}),
    ...(hasBody ? { requestBody: requestBody(schemas.of(bodySchema, 'input')) } : {}),
    responses: {
      ...Object.fromEntries(
        statuses.map((s) => [
          s,
          {
            description: 'Success.',
            ...(isGuarded(route.op) ? { headers: IDEMPOTENT_REPLAYED } : {}),
            content: { 'application/json': { schema: output } },
          },
        ]),
      ),
      ...errorResponses(isGuarded(route.op) ? { 409: IDEMPOTENT_CONFLICT } : {}),
    },
  };
}

/**
 * A JSON request body. It is required only when the schema requires a field: the server reads a
 * missing body as `{}`, so a PATCH whose fields are all optional accepts none (and changes nothing).
 */
function requestBody(schema: Json): Json {
  const required = Array.isArray(schema.required) && schema.required.length > 0;
  return { required, content: { 'application/json': { schema } } };
}

const errorResponses = (descriptions: Record<string, string> = {}) => ({
  ...Object.fromEntries(
    Object.entries({ ...ERROR_STATUSES, ...descriptions }).map(([s, description]) => [
      s,
      { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } } },
    ]),
  ),
  // A request line and headers over 16 KiB (a long non-ASCII path parameter gets there once
  // percent-encoded) answer 431 in the envelope; past Bun's parser limit (64 KiB) Bun answers alone.
  431: {
    description:
      'The request line and headers are larger than the server accepts (16 KiB): `validation` with `details.limit_bytes`. Over 64 KiB the answer has no body.',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
  },
});

export function openApiDocument(site: Site): Json {
  const schemas = new SchemaSet();
  schemas.of(ErrorEnvelope, 'output');
  const paths: Record<string, Json> = {};
  for (const route of REST_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path]![route.method] = operationFor(route, schemas);
  }
  paths['/v1/session'] = {
    post: {
      operationId: 'sign_in',
      summary: "Sign the owner in with email and password; returns a session token for the owner's routes.",
      tags: ['owner'],
      security: [],
      requestBody: requestBody(schemas.of(SignIn, 'input')),
      responses: {
        201: {
          description: 'Signed in.',
          content: { 'application/json': { schema: schemas.of(SessionToken, 'output') } },
        },
        ...errorResponses(),
      },
    },
    delete: {
      operationId: 'sign_out',
      summary: 'End the owner session the bearer belongs to.',
      tags: ['owner'],
      responses: {
        200: {
          description: 'Signed out.',
          content: { 'application/json': { schema: schemas.of(SignedOut, 'output') } },
        },
        ...errorResponses(),
      },
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Engram agent protocol',
      version: pkg.version,
      description: "A person's memory, read and written by programs and AI apps under credentials the person controls.",
    },
    servers: [{ url: site.baseUrl }],
    security: [{ bearer: [] }],
    tags: [
      { name: 'tools', description: 'The operations of the tool table.' },
      { name: 'owner', description: "The owner's session only." },
    ],
    paths,
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: 'A developer key (egm_…), a consent token, or the owner session (egs_…).',
        },
      },
      schemas: schemas.components,
    },
  };
}

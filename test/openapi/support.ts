/**
 * Reading the served OpenAPI document in tests: its operations, a JSON Schema 2020-12 compiler
 * (ajv) that resolves the document's component references, and checking a real answer against
 * the response the document gives for its operation and status.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';

interface OpenApiSchemaRef {
  schema?: Record<string, unknown>;
}

export interface OpenApiOperation {
  operationId: string;
  parameters?: { name: string; in: 'path' | 'query'; required?: boolean; schema: Record<string, unknown> }[];
  requestBody?: { required?: boolean; content: Record<string, OpenApiSchemaRef> };
  responses: Record<string, { description: string; content?: Record<string, OpenApiSchemaRef> }>;
}

export interface OpenApiDocument {
  openapi: string;
  servers: { url: string }[];
  paths: Record<string, Record<string, OpenApiOperation>>;
  components: { schemas: Record<string, unknown> };
}

/** Every operation of the document with its method and path template. */
export function operationsOf(doc: OpenApiDocument): { method: string; path: string; operation: OpenApiOperation }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ method, path, operation })),
  );
}

const COMPONENTS = 'https://engram.invalid/openapi/components';

/** `#/components/schemas/X` points into the document; ajv sees the components as a schema of their own. */
const relink = <T>(schema: T): T =>
  JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${COMPONENTS}#/$defs/`));

/**
 * A compiler for the document's schemas: JSON Schema 2020-12 in ajv's strict mode (an unknown
 * keyword or a `required` name without a property is an error), union types allowed, as 3.1 uses them.
 */
export function compilerFor(doc: OpenApiDocument): (schema: unknown) => ValidateFunction {
  const ajv = new Ajv2020({ strict: true, allowUnionTypes: true, allErrors: true });
  ajv.addSchema({ $id: COMPONENTS, $defs: relink(doc.components.schemas) });
  const cache = new Map<string, ValidateFunction>();
  return (schema) => {
    const key = JSON.stringify(schema);
    let validate = cache.get(key);
    if (!validate) {
      validate = ajv.compile(relink(schema as object));
      cache.set(key, validate);
    }
    return validate;
  };
}

/** The operation a concrete request path answers to: `/v1/documents/doc_1` → `/v1/documents/{document_id}`. */
export function operationFor(
  doc: OpenApiDocument,
  method: string,
  path: string,
): { template: string; operation: OpenApiOperation } | null {
  const bare = path.split('?')[0]!;
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{\w+\}/g, '[^/]+')}$`);
    const operation = item[method.toLowerCase()];
    if (operation && pattern.test(bare)) return { template, operation };
  }
  return null;
}

/**
 * Checks one real answer against the document: the operation exists, the status is one it
 * documents, the body is JSON and valid against that response's schema. Returns the problems
 * (empty when it conforms) so a test can report every answer that does not.
 */
export function conformance(
  doc: OpenApiDocument,
  compile: (schema: unknown) => ValidateFunction,
  answer: { method: string; path: string; status: number; contentType: string | null; body: unknown },
): string[] {
  const where = `${answer.method} ${answer.path} → ${answer.status}`;
  const found = operationFor(doc, answer.method, answer.path);
  if (!found) return [`${where}: no operation in the document`];
  const response = found.operation.responses[String(answer.status)];
  if (!response) return [`${where}: status not documented for ${found.operation.operationId}`];
  if (!response.content) return answer.body === '' ? [] : [`${where}: a body where the document gives none`];
  const schema = response.content['application/json']?.schema;
  if (!schema) return [`${where}: no JSON schema for this response`];
  if (!answer.contentType?.startsWith('application/json')) return [`${where}: content-type ${answer.contentType}`];
  const validate = compile(schema);
  if (validate(answer.body)) return [];
  return [`${where}: ${JSON.stringify(validate.errors)} in ${JSON.stringify(answer.body).slice(0, 500)}`];
}

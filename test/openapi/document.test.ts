/**
 * The served OpenAPI document is a valid OpenAPI 3.1 document by a standard validator, every
 * schema in it is a valid JSON Schema 2020-12, and it describes exactly the route table.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { OPENAPI_PATH } from '../../src/http/openapi';
import { REST_ROUTES } from '../../src/http/rest';
import { startTestServer, type TestServer } from '../helpers/server';
import { compilerFor, type OpenApiDocument, operationsOf } from './support';

describe('the served OpenAPI document', () => {
  let server: TestServer;
  let doc: OpenApiDocument;
  let res: Response;
  beforeAll(async () => {
    server = await startTestServer();
    res = await fetch(`${server.url}${OPENAPI_PATH}`);
    doc = (await res.clone().json()) as OpenApiDocument;
  });
  afterAll(() => server.close());

  it('is served without a credential, as JSON', () => {
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toStartWith('application/json');
  });

  it('validates as OpenAPI 3.1 with @seriousme/openapi-schema-validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('would be refused by that validator if it were broken (the check has teeth)', async () => {
    const broken = structuredClone(doc) as any;
    delete broken.paths['/v1/search'].post.responses;
    broken.paths['/v1/containers'].get.parameters = [{ name: 'x', in: 'nowhere' }];
    const result = await new Validator().validate(broken);
    expect(result.valid).toBe(false);
  });

  it('has schemas that each compile as JSON Schema 2020-12 in strict mode, references resolved', () => {
    const compile = compilerFor(doc);
    let compiled = 0;
    for (const { operation } of operationsOf(doc)) {
      const schemas = [
        ...(operation.parameters ?? []).map((p) => p.schema),
        operation.requestBody?.content['application/json']?.schema,
        ...Object.values(operation.responses).map((r) => r.content?.['application/json']?.schema),
      ];
      for (const schema of schemas) {
        if (!schema) continue;
        expect(() => compile(schema)).not.toThrow();
        compiled++;
      }
    }
    expect(compiled).toBeGreaterThan(100);
  });

  it('names the server it is served by', () => {
    expect(doc.servers).toEqual([{ url: server.site.baseUrl }]);
  });

  it('describes every route of the table, once, under its tool name, with its path parameters', () => {
    const ops = operationsOf(doc);
    const ids = ops.map((o) => o.operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    for (const route of REST_ROUTES) {
      const op = doc.paths[route.path]?.[route.method];
      expect(op?.operationId).toBe(route.op.name);
      const inPath = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const declared = (op?.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
      expect(declared).toEqual(inPath);
    }
    // The table, plus signing in and out.
    expect(ops.length).toBe(REST_ROUTES.length + 2);
  });

  it('marks a request body required exactly when its schema requires a field (the server reads none as {})', () => {
    for (const { operation } of operationsOf(doc)) {
      if (!operation.requestBody) continue;
      const schema = operation.requestBody.content['application/json']?.schema as { required?: string[] };
      expect({ id: operation.operationId, required: operation.requestBody.required }).toEqual({
        id: operation.operationId,
        required: (schema.required ?? []).length > 0,
      });
    }
    expect(doc.paths['/v1/search']?.post?.requestBody).toMatchObject({ required: true });
    expect(doc.paths['/v1/containers/{container_id}']?.patch?.requestBody).toMatchObject({ required: false });
  });

  it('documents an error envelope for every refusal status on every operation', () => {
    for (const { operation } of operationsOf(doc)) {
      for (const status of ['400', '401', '403', '404', '409', '422', '429', '500']) {
        expect(operation.responses[status]?.content?.['application/json']?.schema).toEqual({
          $ref: '#/components/schemas/ErrorEnvelope',
        });
      }
    }
  });
});

// Compile-time promises of the published types, checked by `tsc -p tsconfig.test.json` against
// dist/*.d.ts. Never run: every line either compiles or is marked @ts-expect-error on purpose.

import {
  APIConnectionError,
  APIError,
  type Client,
  EngramError,
  NotFoundError,
  isConfirmationRequest,
  type ClientOptions,
  type ConfirmationRequest,
  type DeleteDocumentResult,
  type Document,
  type ErrorEnvelope,
  type ForgetMemoryResult,
  type SearchResponse,
  type WriteOptions,
} from '../dist/index.js';

export async function confirmationMustBeNarrowed(client: Client): Promise<string> {
  const deleted: DeleteDocumentResult = await client.documents.delete('doc_1');
  // @ts-expect-error a confirmation request has no `id`: check `status` first.
  void deleted.id;
  if (deleted.status === 'confirmation_required') {
    const request: ConfirmationRequest = deleted;
    return request.how;
  }
  const id: string = deleted.id;
  // What went with it, and the reviewed facts that stayed.
  const counts: number = deleted.forgotten.passages + deleted.forgotten.facts + deleted.kept.facts;
  void counts;

  const forgotten: ForgetMemoryResult = await client.memories.forget('mem_1', { confirm: true });
  if (isConfirmationRequest(forgotten)) return forgotten.verb;
  const status: 'forgotten' = forgotten.status;
  return id + status;
}

export async function searchCarriesContainerErrors(client: Client): Promise<void> {
  const response: SearchResponse = await client.search({ q: 'tea' });
  for (const searched of response.containers) {
    // `error` is optional, so it must be checked before use.
    // @ts-expect-error possibly undefined
    void searched.error.message;
    if (searched.error) void searched.error.code;
  }
  const hit = response.results[0];
  if (hit) {
    const name: string = hit.container_name;
    const doc: string | null = hit.document_id;
    void name;
    void doc;
  }
}

export async function wireNamesStaySnakeCase(client: Client): Promise<void> {
  const added = await client.add({ container: 'ctr_1', content: 'x', custom_id: 'c1' });
  const custom: string | null = added.custom_id;
  const doc: Document = await client.documents.get(added.id);
  void custom;
  void doc.learned;
}

export function errorsCarryTheEnvelope(error: unknown): void {
  if (error instanceof NotFoundError) {
    const status: 404 = error.status;
    void status;
  }
  if (error instanceof APIConnectionError) {
    const status: null = error.status;
    void status;
  }
  if (error instanceof APIError) {
    const fields: [number | null, string | null, string, Record<string, unknown>, boolean, string | null] = [
      error.status,
      error.code,
      error.message,
      error.details,
      error.retryable,
      error.trace_id,
    ];
    void fields;
  }
  const envelope: ErrorEnvelope = { code: 'x', message: 'y', details: {}, retryable: false, trace_id: 't' };
  void envelope;
  void (new EngramError('x') instanceof Error);
}

export function requiredParameters(client: Client): void {
  // @ts-expect-error q is required
  void client.search({});
  // @ts-expect-error content is required
  void client.memories.add({ container: 'ctr_1' });
  // @ts-expect-error message is required
  void client.ask({ model: 'm' });
}

export function testHooksAreNotPublic(): ClientOptions {
  // @ts-expect-error _hooks is internal and stripped from the published types
  return { apiKey: 'k', _hooks: {} };
}

export async function writesTakeAnIdempotencyKey(client: Client, options: WriteOptions): Promise<void> {
  await client.add({ container: 'ctr_1', content: 'x' }, options);
  await client.memories.add({ content: 'x' }, { idempotencyKey: 'k-1' });
  await client.documents.delete('doc_1', { confirm: true }, { idempotencyKey: 'k-2' });
  await client.memories.forget('mem_1', {}, { idempotencyKey: 'k-3' });
  // @ts-expect-error the key is a string
  await client.memories.add({ content: 'x' }, { idempotencyKey: 42 });
}

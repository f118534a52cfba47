/** `client.documents`: list, read and delete documents. Adding one is `client.add`, as in the method map. */

import { idempotencyKeyFor } from '../internal/idempotency.js';
import { pathParam, type Requester } from '../internal/request.js';
import type {
  DeleteDocumentParams,
  DeleteDocumentResult,
  Document,
  DocumentList,
  ListDocumentsParams,
  WriteOptions,
} from '../types.js';

export class Documents {
  readonly #request: Requester;

  /** Made by Client; not meant to be constructed directly. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * GET /v1/documents (list_documents, Read): documents in reach, newest first, one page at a time.
   * Pass the answer's `next_cursor` as `cursor` for the next page.
   */
  list(params: ListDocumentsParams = {}): Promise<DocumentList> {
    const { container, limit, cursor } = params;
    return this.#request({ method: 'GET', path: '/v1/documents', query: { container, limit, cursor } });
  }

  /**
   * GET /v1/documents/{id} (get_document, Read): one document with its `content` and `learned`.
   * Rejects with EngramError, before sending, when `id` is empty; NotFoundError for an unknown id.
   */
  async get(id: string): Promise<Document> {
    return this.#request({ method: 'GET', path: `/v1/documents/${pathParam('document_id', id)}` });
  }

  /**
   * DELETE /v1/documents/{id} (delete_document, Full access). Without `confirm: true` nothing is
   * deleted and the answer is a ConfirmationRequest (HTTP 200, not an error); check `status`.
   * Rejects with EngramError, before sending, when `id` is empty.
   */
  async delete(id: string, params: DeleteDocumentParams = {}, options?: WriteOptions): Promise<DeleteDocumentResult> {
    const path = `/v1/documents/${pathParam('document_id', id)}`;
    // Only `true` confirms, so only `true` is sent; the server treats an absent value as "not yet".
    const query = { confirm: params.confirm === true ? true : undefined };
    return this.#request({ method: 'DELETE', path, query, idempotencyKey: await idempotencyKeyFor(options) });
  }
}

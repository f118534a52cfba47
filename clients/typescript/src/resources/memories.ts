/** `client.memories`: save and forget learned facts. Finding them is `client.search` and `client.profile`. */

import { idempotencyKeyFor } from '../internal/idempotency.js';
import { pathParam, type Requester } from '../internal/request.js';
import type { AddMemoryParams, Fact, ForgetMemoryParams, ForgetMemoryResult, WriteOptions } from '../types.js';

export class Memories {
  readonly #request: Requester;

  /** Made by Client; not meant to be constructed directly. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /**
   * POST /v1/memories (add_memory, Read & write): saves one fact. With `static: true` it goes to
   * the profile; otherwise to `container`, which may be omitted only when one container is in reach.
   */
  async add(params: AddMemoryParams, options?: WriteOptions): Promise<Fact> {
    return this.#request({
      method: 'POST',
      path: '/v1/memories',
      body: params,
      idempotencyKey: await idempotencyKeyFor(options),
    });
  }

  /**
   * DELETE /v1/memories/{id} (forget_memory, Full access). Without `confirm: true` nothing is
   * forgotten and the answer is a ConfirmationRequest (HTTP 200, not an error); check `status`.
   * Rejects with EngramError, before sending, when `id` is empty.
   */
  async forget(id: string, params: ForgetMemoryParams = {}, options?: WriteOptions): Promise<ForgetMemoryResult> {
    const path = `/v1/memories/${pathParam('memory_id', id)}`;
    const query = { container: params.container, confirm: params.confirm === true ? true : undefined };
    return this.#request({ method: 'DELETE', path, query, idempotencyKey: await idempotencyKeyFor(options) });
  }
}

/** `client.containers`: the containers (Memories) inside the key's reach. */

import type { Requester } from '../internal/request.js';
import type { ContainerList } from '../types.js';

export class Containers {
  readonly #request: Requester;

  /** Made by Client; not meant to be constructed directly. */
  constructor(request: Requester) {
    this.#request = request;
  }

  /** GET /v1/containers (list_containers, Read): only the containers inside the key's reach. */
  list(): Promise<ContainerList> {
    return this.#request({ method: 'GET', path: '/v1/containers' });
  }
}

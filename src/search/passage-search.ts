/**
 * Searching passages across containers. Each container is searched on its own so that one that
 * fails is reported in `containers[].error` instead of looking like an empty memory.
 */
import type { z } from 'zod';
import type { Logger } from '../log';
import type * as S from '../operations/schemas';
import type { Container, Store } from '../storage/store';

type SearchResponse = z.infer<typeof S.SearchResponse>;

export function searchContainers(
  ctx: { store: Store; log: Logger; traceId: string },
  accountId: string,
  containers: Container[],
  q: string,
  limit: number,
): SearchResponse {
  const results: SearchResponse['results'] = [];
  const searched: SearchResponse['containers'] = [];
  for (const c of containers) {
    try {
      for (const hit of ctx.store.searchPassages(accountId, c.id, q, limit)) {
        results.push({
          container: c.id, container_name: c.name, content: hit.content, score: hit.score,
          document_id: hit.documentId, memory_id: hit.memoryId, custom_id: hit.customId, title: hit.title, position: hit.position,
        });
      }
      searched.push({ id: c.id, name: c.name });
    } catch (err) {
      ctx.log.error('search failed in a container', { trace_id: ctx.traceId, container: c.id, error: String(err) });
      searched.push({ id: c.id, name: c.name, error: { code: 'internal', message: 'Searching this container failed.' } });
    }
  }
  results.sort((a, b) => b.score - a.score);
  return { results: results.slice(0, limit), containers: searched };
}

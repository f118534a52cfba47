/**
 * Hybrid passage search: BM25 over FTS5 and nearest neighbours in the vector index, fused by
 * reciprocal rank. Keyword search runs per container, so one that fails is reported in
 * `containers[].error` instead of looking like an empty memory. Without an embedder, or while a
 * re-embedding runs, search is keyword-only.
 */
import type { z } from 'zod';
import type { Embedder } from '../learning/embedder/embedder';
import type { Logger } from '../log';
import type * as S from '../operations/schemas';
import type { Container, PassageHit, Store } from '../storage/store';
import { reciprocalRankFusion } from './fusion';
import { VectorIndex } from './vector-index';

type SearchResponse = z.infer<typeof S.SearchResponse>;

const LOAD_PAGE = 5_000;

/**
 * Cosine similarity below which a passage is not a vector match at all. With the built-in model,
 * unrelated texts sit around 0.26 (median) and relevant ones mostly above 0.39 (see
 * docs/embedding-model.md); without a floor, a search for something the memory never heard of
 * would still answer with its nearest strangers.
 */
export const MIN_SIMILARITY = 0.3;

/**
 * Keyword and vector votes in the fusion. The built-in static model is strong on short passages
 * and weak on long, many-topic ones, where BM25 is better; at 1:0.5 the hybrid beats keyword-only
 * on both kinds (bench/retrieval-quality.ts, figures in docs/performance.md).
 */
export const FUSION_WEIGHTS = [1, 0.5];

export class SearchEngine {
  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly embedder: Embedder | null,
    private readonly index: VectorIndex | null,
  ) {}

  /** Builds the vector index from the stored vectors; with no embedder, search is keyword-only. */
  static open(store: Store, log: Logger, embedder: Embedder | null): SearchEngine {
    if (!embedder) return new SearchEngine(store, log, null, null);
    const index = new VectorIndex(embedder.dimensions);
    for (let page = store.listVectors(0, LOAD_PAGE); page.length; page = store.listVectors(page.at(-1)!.passageId, LOAD_PAGE)) {
      for (const v of page) index.add(v.passageId, v.containerId, v.vector);
      // Each page read is garbage once indexed; collecting it now keeps the start-up peak near
      // the index's own size instead of the whole table's.
      Bun.gc(true);
    }
    return new SearchEngine(store, log, embedder, index);
  }

  /** Adds passages whose vectors the learning worker just stored. */
  indexPassages(passageIds: number[]): void {
    if (!this.index) return;
    for (const v of this.store.getVectors(passageIds)) this.index.add(v.passageId, v.containerId, v.vector);
  }

  async search(accountId: string, containers: Container[], q: string, limit: number, traceId: string): Promise<SearchResponse> {
    const depth = Math.max(limit * 3, 30);
    const keyword: PassageHit[] = [];
    const searched: SearchResponse['containers'] = [];
    for (const c of containers) {
      try {
        keyword.push(...this.store.searchPassages(accountId, c.id, q, depth));
        searched.push({ id: c.id, name: c.name });
      } catch (err) {
        this.log.error('search failed in a container', { trace_id: traceId, container: c.id, error: String(err) });
        searched.push({ id: c.id, name: c.name, error: { code: 'internal', message: 'Searching this container failed.' } });
      }
    }
    keyword.sort((a, b) => b.score - a.score);
    const reachable = containers.filter((c, i) => !searched[i]!.error).map((c) => c.id);
    const vector = await this.nearest(q, reachable, depth, traceId);
    const byId = new Map(keyword.map((h) => [h.passageId, h]));
    const fused = vector.length
      ? reciprocalRankFusion([keyword.map((h) => h.passageId), vector], FUSION_WEIGHTS).slice(0, limit)
      : keyword.slice(0, limit).map((h) => ({ item: h.passageId, score: h.score }));
    const missing = fused.map((f) => f.item).filter((id) => !byId.has(id));
    for (const h of this.store.getPassageHits(accountId, missing)) byId.set(h.passageId, h);
    const names = new Map(containers.map((c) => [c.id, c.name]));
    const results: SearchResponse['results'] = [];
    for (const { item, score } of fused) {
      const hit = byId.get(item);
      // A vector of a passage deleted since it was indexed is dropped here, and from the index.
      if (!hit) {
        this.index?.remove(item);
        continue;
      }
      results.push({
        container: hit.containerId, container_name: names.get(hit.containerId)!, content: hit.content, score,
        document_id: hit.documentId, memory_id: hit.memoryId, custom_id: hit.customId, title: hit.title, position: hit.position,
      });
    }
    return { results, containers: searched };
  }

  /** Nearest passages by vector; empty when keyword-only, or when embedding the query fails. */
  private async nearest(q: string, containerIds: string[], k: number, traceId: string): Promise<number[]> {
    if (!this.embedder || !this.index || containerIds.length === 0 || this.store.hasPendingJob('reembed')) return [];
    try {
      const [query] = await this.embedder.embed([q]);
      return this.index.search(query!, containerIds, k).filter((h) => h.score >= MIN_SIMILARITY).map((h) => h.passageId);
    } catch (err) {
      this.log.warn('query embedding failed; keyword-only for this search', { trace_id: traceId, error: String(err) });
      return [];
    }
  }
}

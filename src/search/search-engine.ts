/**
 * Hybrid passage search: BM25 over FTS5 and nearest neighbours by vector, fused by a convex
 * combination of normalised scores. Vectors come in two tiers (see embedding-units.ts and
 * learning/refiner.ts): each passage is searched by the strongest tier it has, so a document is
 * found as soon as it is learned and better once refined. Keyword search runs per container, so one
 * that fails is reported in `containers[].error` instead of looking like an empty memory. Without
 * an embedder, or while a re-embedding runs, search is keyword-only.
 */
import type { z } from 'zod';
import type { Embedder } from '../learning/embedder/embedder';
import type { Logger } from '../log';
import type * as S from '../operations/schemas';
import type { Container, PassageHit, Store, VectorTier } from '../storage/store';
import { convexFusion, type Scored } from './fusion';
import { VectorIndex } from './vector-index';

type SearchResponse = z.infer<typeof S.SearchResponse>;

const LOAD_PAGE = 2_000;

/** Candidates taken from each of keyword and vector search before fusing. */
export const CANDIDATES = 100;

/**
 * The keyword side's weight in the fusion (the vector side has the rest), chosen on the
 * conversational benchmark (bench/retrieval-quality.ts; the table is in docs/performance.md).
 */
export const KEYWORD_WEIGHT = 0.5;

/** The embedders search uses: `fast` makes a passage searchable at once, `strong` refines it. */
export interface SearchEmbedders {
  fast: Embedder | null;
  strong: Embedder | null;
}

/** Figures for `GET /healthz`: how many passages each tier's index holds. */
export interface IndexFigures {
  fast: number;
  strong: number;
}

export class SearchEngine {
  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly embedders: SearchEmbedders,
    private readonly indexes: Record<VectorTier, VectorIndex | null>,
  ) {}

  /**
   * Builds the vector indexes from the stored vectors: the strong tier's, then the fast tier's for
   * passages not yet refined. With no embedder, search is keyword-only.
   */
  static open(store: Store, log: Logger, embedders: SearchEmbedders): SearchEngine {
    const indexes: Record<VectorTier, VectorIndex | null> = {
      strong: embedders.strong && new VectorIndex(embedders.strong.dimensions),
      fast: embedders.fast && new VectorIndex(embedders.fast.dimensions),
    };
    for (const tier of ['strong', 'fast'] as const) {
      const index = indexes[tier];
      if (!index) continue;
      const unless = tier === 'fast' && indexes.strong ? 'strong' : undefined;
      for (let page = store.listVectors(tier, 0, LOAD_PAGE, unless); page.length;
        page = store.listVectors(tier, page.at(-1)!.passageId, LOAD_PAGE, unless)) {
        for (const p of page) index.add(p.passageId, p.containerId, p.vectors);
      }
      // Each page read is garbage once indexed; collecting it now keeps the start-up peak near
      // the indexes' own size instead of the whole table's.
      Bun.gc(true);
    }
    return new SearchEngine(store, log, embedders, indexes);
  }

  /** Adds passages whose vectors of a tier the learning worker just stored. */
  indexPassages(tier: VectorTier, passageIds: number[]): void {
    const index = this.indexes[tier];
    if (!index) return;
    for (const p of this.store.getVectors(tier, passageIds)) {
      // A refined passage is searched by its strong vectors only.
      if (tier === 'fast' && this.indexes.strong?.has(p.passageId)) continue;
      index.add(p.passageId, p.containerId, p.vectors);
      if (tier === 'strong') this.indexes.fast?.remove(p.passageId);
    }
  }

  /** Drops forgotten passages from the in-memory indexes at once (their stored vectors are already gone). */
  forgetPassages(passageIds: number[]): void {
    for (const id of passageIds) {
      this.indexes.fast?.remove(id);
      this.indexes.strong?.remove(id);
    }
  }

  /** Lets go of the embedders' threads, once the server has stopped answering. */
  async close(): Promise<void> {
    await Promise.all([this.embedders.fast?.close?.(), this.embedders.strong?.close?.()]);
  }

  /** Whether a strong tier refines passages. */
  get refines(): boolean {
    return this.indexes.strong !== null;
  }

  /** Passages each tier's index holds (a refined passage counts under `strong` only). */
  figures(): IndexFigures {
    return { fast: this.indexes.fast?.count ?? 0, strong: this.indexes.strong?.count ?? 0 };
  }

  async search(accountId: string, containers: Container[], q: string, limit: number, traceId: string): Promise<SearchResponse> {
    const depth = Math.max(limit, CANDIDATES);
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
    const fused = convexFusion(keyword.slice(0, depth).map((h) => ({ item: h.passageId, score: h.score })), vector, KEYWORD_WEIGHT)
      .slice(0, limit);
    const missing = fused.map((f) => f.item).filter((id) => !byId.has(id));
    for (const h of this.store.getPassageHits(accountId, missing)) byId.set(h.passageId, h);
    const names = new Map(containers.map((c) => [c.id, c.name]));
    const results: SearchResponse['results'] = [];
    for (const { item, score } of fused) {
      const hit = byId.get(item);
      // A vector of a passage deleted since it was indexed is dropped here, and from the index.
      if (!hit) {
        this.indexes.fast?.remove(item);
        this.indexes.strong?.remove(item);
        continue;
      }
      results.push({
        container: hit.containerId, container_name: names.get(hit.containerId)!, content: hit.content, score,
        document_id: hit.documentId, memory_id: hit.memoryId, custom_id: hit.customId, title: hit.title, position: hit.position,
      });
    }
    return { results, containers: searched };
  }

  /**
   * Nearest passages by vector, each tier's cosine rescaled above its model's similarity floor so
   * that the two tiers' scores can be ranked together; empty when keyword-only. A tier whose query
   * embedding fails is left out of this search, and the other still answers.
   */
  private async nearest(q: string, containerIds: string[], k: number, traceId: string): Promise<Scored<number>[]> {
    if (containerIds.length === 0) return [];
    const tiers = (['fast', 'strong'] as const).filter((tier) => {
      const index = this.indexes[tier];
      // While a re-embedding of the fast tier runs, its vectors are partial: none are used.
      return index && index.count > 0 && !(tier === 'fast' && this.store.hasPendingJob('reembed'));
    });
    const found = await Promise.all(tiers.map(async (tier) => {
      const embedder = this.embedders[tier]!;
      try {
        const [query] = await embedder.embed([q]);
        const floor = embedder.similarityFloor ?? 0;
        return this.indexes[tier]!.search(query!, containerIds, k)
          .filter((h) => h.score > floor)
          .map((h) => ({ item: h.passageId, score: (h.score - floor) / (1 - floor) }));
      } catch (err) {
        this.log.warn('query embedding failed; this search goes without that tier', { trace_id: traceId, tier, error: String(err) });
        return [];
      }
    }));
    return found.flat().sort((a, b) => b.score - a.score).slice(0, k);
  }
}

/**
 * Hybrid passage search: BM25 over the store's keyword index and nearest neighbours in each
 * embedding tier's vector index (see embedding-units.ts and learning/refiner.ts), fused by a convex
 * combination of normalised scores, then the page picked by the levers (tuning.ts). A document is
 * found by the fast tier as soon as it is learned, and by the strong tier too once refined: the two
 * tiers' lists together beat either alone. Keyword search asks one query for all the containers;
 * when it fails, every container is reported as failed instead of looking like an empty memory
 * (docs/decisions.md). Without an embedder, or while a re-embedding runs, search is keyword-only.
 * The answer is the domain's (passages and containers); the operations give it the contract's shape
 * (docs/protocol.md). The indexes' life is vector-indexes.ts's.
 */
import type { EmbedderTiers } from '../embedders/create-embedders';
import type { Logger } from '../log';
import type { Container, PassageHit, Store, VectorTier } from '../storage/store';
import type { VectorFeed } from '../storage/vector-feed';
import { stepDownAsking } from './asking';
import { ownContentWords, stepDownContentPoor } from './content-poor';
import { daysNamed, stepUpDated } from './dated';
import { EVERY_TIER_CANDIDATES, scoredByTier } from './every-tier';
import { stepUpSpoken } from './speaker';
import { convexFusion, fairWeights, type FusionWeights, type Scored } from './fusion';
import { QueryEmbedder } from './query-embedder';
import { SearchActivity } from './search-activity';
import { TIERS } from './store-pages';
import { DEFAULT_TUNING, type SearchTuning } from './tuning';
import { VectorIndexes } from './vector-indexes';

/** A passage found: as the store reads it, with its score in this search and its container. */
export interface SearchHit extends PassageHit {
  container: Container;
}

/** A container searched, and whether its search failed (a failure is not an empty memory). */
export interface SearchedContainer {
  container: Container;
  failed: boolean;
}

export interface SearchResult {
  /** Most relevant first. */
  hits: SearchHit[];
  /** In the order asked. */
  containers: SearchedContainer[];
}

/** Candidates taken from keyword search and from each vector tier before fusing. */
export const CANDIDATES = 50;

/** With the levers on, the page is picked from this many times its size of the best hits. */
const PAGE_POOL = 3;

/**
 * Each list's weight in the fusion, chosen on the generated conversations and REALTALK
 * (bench/retrieval-quality.ts; the tables are in docs/performance.md, issues 17 and 39): while the
 * strong tier holds passages, and with the fast tier alone.
 */
export const FUSION_WEIGHTS: Record<'withStrong' | 'fastOnly', FusionWeights> = {
  withStrong: { keyword: 0.3, strong: 0.4, fast: 0.3 },
  fastOnly: { keyword: 0.4, strong: 0, fast: 0.6 },
};

/** A tier's query vector on its way (null once its embedding failed), or null when the tier is not searched. */
type QueryVector = Promise<Float32Array | null> | null;

/** What SearchEngine.open needs; the optional ones default to the server's choice. */
export interface SearchEngineOptions {
  store: Store;
  log: Logger;
  embedders: EmbedderTiers;
  /** Where the indexes are saved between runs. */
  dataDir: string;
  /** The searches in flight, which the learning thread reads (a fresh one by default). */
  activity?: SearchActivity;
  /** How long the indexes rest before they are saved (0: only at close). */
  saveAfterMs?: number;
  /** The levers (the benchmark's; DEFAULT_TUNING by default). */
  tuning?: SearchTuning;
  /** A shared store's vector feed, which the indexes follow. */
  feed?: VectorFeed | null;
}

export class SearchEngine {
  /**
   * Searches `indexes` with query vectors from `embedders` (the same models that embedded the
   * passages). Each search is recorded in `activity`, which the learning thread reads. `tuning`
   * switches the levers (the benchmark's; the server runs DEFAULT_TUNING).
   */
  constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly embedders: EmbedderTiers,
    readonly indexes: VectorIndexes,
    private readonly activity: SearchActivity,
    private readonly tuning: SearchTuning = DEFAULT_TUNING,
  ) {}

  /**
   * The indexes opened for the embedders' tiers (see VectorIndexes.open) and the engine over them.
   * With a strong model on a thread of its own, that thread helps scan both tiers' indexes once loaded.
   * With a shared store's `feed`, the indexes follow what every process stores and forgets.
   */
  static async open({
    store,
    log,
    embedders,
    dataDir,
    activity = new SearchActivity(),
    saveAfterMs = 0,
    tuning = DEFAULT_TUNING,
    feed = null,
  }: SearchEngineOptions): Promise<SearchEngine> {
    const dimensions = { fast: embedders.fast?.dimensions ?? null, strong: embedders.strong?.dimensions ?? null };
    const indexes = await VectorIndexes.open(store, log, dimensions, dataDir, activity, saveAfterMs, feed);
    // The strong query vector's thread is idle once it has sent the vector: it scans part of each
    // tier's index alongside this thread (the fast tier's, which this thread scans while the query
    // is embedded, from the moment it is free; the strong tier's, which waits on that vector).
    const { strong } = embedders;
    if (strong instanceof QueryEmbedder) {
      void indexes.loaded.then(() => {
        for (const tier of TIERS) {
          const share = indexes.shareScans(tier);
          if (share) strong.helpScans(share);
        }
      });
    }
    return new SearchEngine(store, log, embedders, indexes, activity, tuning);
  }

  /**
   * Lets go of the embedders' threads, then saves and frees the indexes (VectorIndexes.close), once
   * the server has stopped answering and learning has stopped.
   */
  async close(): Promise<void> {
    await this.indexes.settle();
    await Promise.all([this.embedders.fast?.close?.(), this.embedders.strong?.close?.()]);
    await this.indexes.close();
  }

  /** The `limit` passages of `containers` most relevant to `q`; waits for the indexes to load at start. */
  async search(
    accountId: string,
    containers: Container[],
    q: string,
    limit: number,
    traceId: string,
  ): Promise<SearchResult> {
    await this.indexes.loaded;
    return this.activity.during(
      () => this.run(accountId, containers, q, limit, traceId),
      containers.map((c) => c.id),
    );
  }

  private async run(
    accountId: string,
    containers: Container[],
    q: string,
    limit: number,
    traceId: string,
  ): Promise<SearchResult> {
    const { indexes, tuning } = this;
    const depth = Math.max(limit, CANDIDATES);
    // Asked first: the strong model embeds the query on its own thread while keyword search runs.
    const strong = this.embedQuery('strong', q, containers.length, traceId);
    // Keyword search asked at once, one query for every container: a store in another process
    // (PostgreSQL) or on another thread (SQLite's keyword reader) ranks while this one scans the vectors.
    const asked = this.store.passages.search(
      accountId,
      containers.map((c) => c.id),
      q,
      depth,
    );
    const answered = asked.then(
      (hits) => ({ hits }),
      (err: unknown) => ({ err }),
    );
    // A re-embedding of the fast tier under way leaves its vectors partial meanwhile: that tier is not searched.
    const reembedding = indexes.count('fast') > 0 && (await indexes.fastTierPartial());
    const vectors = { fast: reembedding ? null : this.embedQuery('fast', q, containers.length, traceId), strong };
    // The database driver sends a query only when the event loop turns, and the scan holds this thread.
    if (Bun.peek.status(asked) === 'pending') await new Promise((resolve) => setImmediate(resolve));
    let vector = await this.nearest(
      vectors,
      containers.map((c) => c.id),
      depth,
    );
    // Scans done: a keyword search its thread has not begun (that core busy elsewhere) runs here now.
    this.store.keywordSearchesHere?.();
    const answer = await answered;
    const failed = 'err' in answer;
    const searched = containers.map((container): SearchedContainer => ({ container, failed }));
    const keyword = failed ? [] : answer.hits.map((h) => ({ item: h.passageId, score: h.score }));
    if (failed) {
      // Rare: the keyword search failed. Every container is reported failed and none of its passages
      // is returned, the vectors' neither: a search that could not look must not read as one that
      // found little (docs/decisions.md).
      this.log.error('keyword search failed', {
        trace_id: traceId,
        containers: containers.map((c) => c.id),
        error: String(answer.err),
      });
      vector = { fast: [], strong: [] };
    }
    // A passage the strong tier has not reached yet is weighed as the fast tier alone weighs it
    // (fusion.ts); so is every passage when this search has no strong query vector (its model failed).
    const weights = (await strong)
      ? fairWeights((id: number) => indexes.holds('strong', id), FUSION_WEIGHTS.withStrong, FUSION_WEIGHTS.fastOnly)
      : FUSION_WEIGHTS.fastOnly;
    const fuse = () =>
      convexFusion([
        { hits: keyword, weight: weights.keyword },
        { hits: vector.fast, weight: weights.fast },
        { hits: vector.strong, weight: weights.strong },
      ]);
    let fused = fuse();
    if (tuning.everyTier) {
      vector = await this.scoredByEveryTier(
        vectors,
        vector,
        fused.slice(0, EVERY_TIER_CANDIDATES).map((f) => f.item),
      );
      fused = fuse();
    }
    // Only the page's passages are read in full: with a lever on, the pool it is picked from; when
    // the question names a day, every candidate, for the passages of that day.
    const days = tuning.dated ? daysNamed(q) : [];
    const picking = tuning.contentPoor || tuning.asking || tuning.speaker || days.length;
    let pool = days.length ? fused : fused.slice(0, picking ? limit * PAGE_POOL : limit);
    const byId = new Map(
      (
        await this.store.passages.getHits(
          accountId,
          pool.map((f) => f.item),
        )
      ).map((h) => [h.passageId, h]),
    );
    const text = (id: number) => byId.get(id)?.content;
    if (tuning.contentPoor) {
      const counted = (id: number) => {
        const content = text(id);
        return content === undefined ? undefined : ownContentWords(content);
      };
      pool = stepDownContentPoor(pool, counted, tuning.contentPoor);
    }
    if (tuning.asking) pool = stepDownAsking(pool, text, tuning.asking);
    if (days.length) pool = stepUpDated(pool, days, text, tuning.dated);
    if (tuning.speaker) pool = stepUpSpoken(pool, q, text, tuning.speaker);
    // A vector of a passage deleted since it was indexed is dropped here, and from the index.
    const gone = pool.filter((f) => !byId.has(f.item)).map((f) => f.item);
    if (gone.length) indexes.forgetPassages(gone);
    const byContainer = new Map(containers.map((c) => [c.id, c]));
    const hits = pool
      .filter((f) => byId.has(f.item))
      .slice(0, limit)
      .map(({ item, score }): SearchHit => {
        const hit = byId.get(item)!;
        return { ...hit, score, container: byContainer.get(hit.containerId)! };
      });
    return { hits, containers: searched };
  }

  /**
   * The query's vector in a tier; null when the tier is not searched (no embedder or no vectors
   * yet, or no container). A tier whose query embedding fails resolves to null, said in the log:
   * it is left out of this search, and the other still answers.
   */
  private embedQuery(tier: VectorTier, q: string, containers: number, traceId: string): QueryVector {
    if (!this.indexes.count(tier) || containers === 0) return null;
    const failed = (err: unknown) => {
      this.log.warn('query embedding failed; this search goes without that tier', {
        trace_id: traceId,
        tier,
        error: String(err),
      });
      return null;
    };
    try {
      // Called now, not in a later microtask: the request must reach the model's thread before keyword search starts.
      return Promise.resolve(this.embedders[tier]!.embed([q])).then(([vector]) => vector!, failed);
    } catch (err) {
      return Promise.resolve(failed(err));
    }
  }

  /** Each tier's list with the candidates `ids` it lacks scored by the tier (every-tier.ts). */
  private scoredByEveryTier(
    queries: Record<VectorTier, QueryVector>,
    lists: Record<VectorTier, Scored<number>[]>,
    ids: number[],
  ): Promise<Record<VectorTier, Scored<number>[]>> {
    return this.eachTier(queries, (tier, query, floor) =>
      query ? scoredByTier(lists[tier], ids, (id) => this.indexes.similarity(tier, id, query), floor) : lists[tier],
    );
  }

  /**
   * Each tier's nearest passages in `containerIds` by cosine, above its model's similarity floor;
   * empty lists when keyword-only.
   */
  private nearest(
    queries: Record<VectorTier, QueryVector>,
    containerIds: string[],
    k: number,
  ): Promise<Record<VectorTier, Scored<number>[]>> {
    return this.eachTier(queries, (tier, query, floor) =>
      query && containerIds.length
        ? this.indexes
            .nearest(tier, query, containerIds, k)
            .filter((h) => h.score > floor)
            .map((h) => ({ item: h.passageId, score: h.score }))
        : [],
    );
  }

  /**
   * `list` run for each tier as soon as its query vector is there (null when the tier is not
   * searched or its embedding failed), with the tier's similarity floor.
   */
  private async eachTier(
    queries: Record<VectorTier, QueryVector>,
    list: (tier: VectorTier, query: Float32Array | null, floor: number) => Scored<number>[],
  ): Promise<Record<VectorTier, Scored<number>[]>> {
    const run = async (tier: VectorTier) => list(tier, await queries[tier], this.embedders[tier]?.similarityFloor ?? 0);
    const [fast, strong] = await Promise.all([run('fast'), run('strong')]);
    return { fast, strong };
  }
}

/**
 * Hybrid passage search: BM25 over FTS5 and nearest neighbours by vector in each embedding tier
 * (see embedding-units.ts and learning/refiner.ts), fused by a convex combination of normalised
 * scores. A document is found by the fast tier as soon as it is learned, and by the strong tier
 * too once refined: the two tiers' lists together beat either alone. Keyword search runs per
 * container, so one that fails is reported in `containers[].error` instead of looking like an empty
 * memory. Without an embedder, or while a re-embedding runs, search is keyword-only.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Embedder } from '../learning/embedder/embedder';
import type { Logger } from '../log';
import type * as S from '../operations/schemas';
import { INDEX_DIR } from '../data-dir';
import { VECTOR_SNAPSHOT_SETTING } from '../storage/settings';
import type { Container, KeywordHit, PassageHit, Store, VectorTier } from '../storage/store';
import { stepDownContentPoor } from './content-poor';
import { diversify, wordOverlap, wordsIn } from './diversity';
import { convexFusion, type Scored } from './fusion';
import { QueryEmbedder } from './query-embedder';
import { SearchActivity } from './search-activity';
import { DEFAULT_TUNING, type SearchTuning } from './tuning';
import { VectorIndex } from './vector-index';

type SearchResponse = z.infer<typeof S.SearchResponse>;

/**
 * Passages read a page while an index is built, each page collected once indexed. Freed pages are
 * given back to the system only a while later, so a bigger page piles more up while the build
 * runs: at 5,000 the start-up peak at 100k passages was 35–45 MiB higher, for a build ~0.9 s
 * shorter (docs/performance.md). The server answers other requests between two pages.
 */
const LOAD_PAGE = 2_000;
/** Passage ids a tier's units are counted over at a time before its index is built (~20 ms at 100k). */
const COUNT_SLICE = 20_000;

const TIERS = ['strong', 'fast'] as const;
/** Each tier's rows file, and its state saved for the next start. */
const indexFiles = (dataDir: string, tier: VectorTier) => ({ rows: join(dataDir, INDEX_DIR, `${tier}.rows`), state: join(dataDir, INDEX_DIR, `${tier}.state`) });

/** How long a search must be past before the indexes are saved while running: a save takes ~0.3 s at 100k passages, in pieces of up to ~50 ms. */
const SAVE_IDLE_MS = 1000;
/** Saves while running come at most this many quiet times apart: each writes every code again (~50 MB at 100k passages). */
const SAVE_SPACING = 10;

/** Each read passage's words, split once for the levers that read them. */
const wordsRead = (byId: Map<number, PassageHit>) => new Map([...byId].map(([id, hit]) => [id, wordsIn(hit.content)]));

/** The share of words two read passages have in common (diversity.ts), each passage's set made once. */
function overlapOf(words: Map<number, string[]>): (a: number, b: number) => number {
  const sets = new Map<number, Set<string>>();
  const of = (id: number) => sets.get(id) ?? sets.set(id, new Set(words.get(id))).get(id)!;
  return (a, b) => wordOverlap(of(a), of(b));
}

/** Lets the server answer what came in meanwhile. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Candidates taken from keyword search and from each vector tier before fusing. */
export const CANDIDATES = 50;

/** Diversity picks the page from this many times its size of the best hits. */
const DIVERSITY_POOL = 3;

/**
 * Each list's weight in the fusion, chosen on the conversational benchmark (bench/retrieval-quality.ts;
 * the table is in docs/performance.md): with the strong tier, and with the fast tier alone.
 */
export const FUSION_WEIGHTS = {
  refined: { keyword: 0.3, strong: 0.5, fast: 0.2 },
  fast: { keyword: 0.4, strong: 0, fast: 0.6 },
};

/** The embedders search uses: `fast` makes a passage searchable at once, `strong` refines it. */
export interface SearchEmbedders {
  fast: Embedder | null;
  strong: Embedder | null;
}

/** Each tier's query vector on its way: the vector, the error that kept it, or null when the tier is not searched. */
type QueryVectors = Record<VectorTier, Promise<Float32Array | Error> | null>;

/** Figures for `GET /healthz`: how many passages each tier's index holds. */
export interface IndexFigures {
  fast: number;
  strong: number;
}

export class SearchEngine {
  /** Settles once the indexes hold every vector stored at start; searches wait for it. */
  private readonly loaded: Promise<void>;
  /** Whether the indexes hold every stored vector: not when their load failed or was cut short. */
  private whole = false;
  private closing = false;
  /** The token of the saved copy the indexes are, unchanged since; null once they change. */
  private savedToken: string | null;
  /** Whether some tier's saved state may be on disk: removed at the first change, before the rows file can be rewritten. */
  private stateOnDisk: boolean;
  /** When the indexes last changed (or became whole), and were last written. */
  private changedAt = 0;
  private savedAt = 0;
  private saveTimer: Timer | null = null;
  /** A save while running under way, which a stop lets finish first. */
  private saving: Promise<void> | null = null;

  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly embedders: SearchEmbedders,
    private readonly indexes: Record<VectorTier, VectorIndex | null>,
    private readonly activity: SearchActivity,
    private readonly dataDir: string,
    private readonly saveAfterMs: number,
    private readonly tuning: SearchTuning,
    restored: ReadonlySet<VectorTier>,
    token: string | null,
    large: boolean,
  ) {
    this.stateOnDisk = restored.size > 0;
    this.savedToken = restored.size && TIERS.every((tier) => !indexes[tier] || restored.has(tier)) ? token : null;
    this.loaded = this.load(restored, large);
  }

  /**
   * Opens each tier's vector index: the one last saved (at a clean stop, or while running: see
   * `scheduleSave`) when the store still holds its token (no stored vector added, removed or changed
   * since), read in a few milliseconds; otherwise a new one, filled from the stored vectors (see
   * `load`). With no embedder, search is keyword-only and the store is not touched. Each search is
   * recorded in `activity`, which the learning thread reads. The indexes are saved once unchanged for
   * `saveAfterMs` (0: only at a clean stop). `tuning` switches the levers (the benchmark's; the server
   * runs DEFAULT_TUNING).
   */
  static async open(
    store: Store, log: Logger, embedders: SearchEmbedders, dataDir: string, activity = new SearchActivity(), saveAfterMs = 0, tuning = DEFAULT_TUNING,
  ): Promise<SearchEngine> {
    const started = performance.now();
    const indexes: Record<VectorTier, VectorIndex | null> = { strong: null, fast: null };
    const restored = new Set<VectorTier>();
    const searched = TIERS.filter((tier) => embedders[tier]);
    let token: string | null = null;
    // A search without vectors (a command's, or keyword-only) leaves the indexes' files and token alone.
    if (searched.length) {
      token = await store.settings.get(VECTOR_SNAPSHOT_SETTING);
      mkdirSync(join(dataDir, INDEX_DIR), { recursive: true, mode: 0o700 });
      for (const tier of TIERS) {
        const files = indexFiles(dataDir, tier);
        const dimensions = embedders[tier]?.dimensions;
        if (dimensions) {
          const saved = token ? VectorIndex.restore(dimensions, files.rows, files.state, token) : null;
          if (saved) {
            restored.add(tier);
            indexes[tier] = saved;
            continue;
          }
          indexes[tier] = new VectorIndex(dimensions, files.rows);
        } else {
          // A tier no longer searched (its embedder switched off) keeps no files.
          rmSync(files.rows, { force: true });
        }
        rmSync(files.state, { force: true });
      }
      if (restored.size) log.info('search indexes read as last saved', { tiers: [...restored], ms: Math.round(performance.now() - started) });
      if (token && restored.size < searched.length) log.warn('search indexes last saved could not be read; they are rebuilt from the store');
    }
    const large = searched.length > 0 && (await store.passages.lastId()) > LOAD_PAGE;
    const engine = new SearchEngine(store, log, embedders, indexes, activity, dataDir, saveAfterMs, tuning, restored, token, large);
    if (!large) await engine.loaded;
    return engine;
  }

  /**
   * Reads every stored vector into its tier's index, a page at a time. A store of one page is read
   * before `open` returns; a larger one is read between requests from the start, counting included
   * (~5 s at 100k passages), so the server answers at once and its searches wait for the indexes.
   * Vectors stored or forgotten meanwhile are applied as they come: a passage read twice is
   * replaced, not doubled. Should the store fail to give its vectors, search goes on by keyword
   * alone until the next start. A `restored` tier's index is whole already.
   */
  private async load(restored: ReadonlySet<VectorTier>, large: boolean): Promise<void> {
    const started = performance.now();
    try {
      if (large) await turn();
      for (const tier of TIERS) {
        const index = this.indexes[tier];
        if (!index || restored.has(tier)) continue;
        // Sized once: growing by doubling while loading would hold two copies at the switch.
        index.reserve(large ? await this.countStored(tier) : await this.store.vectors.countUnits(tier));
        for (let page = await this.store.vectors.list(tier, 0, LOAD_PAGE); page.length; page = await this.store.vectors.list(tier, page.at(-1)!.passageId, LOAD_PAGE)) {
          for (const p of page) index.add(p.passageId, p.containerId, p.vectors);
          // Each page read is garbage once indexed; collecting it before the next page keeps the
          // start-up peak near the indexes' own size instead of the whole table's, and after the
          // last, the memory at rest. A small store is not collected: no collection (~20 ms) to
          // wait for at its start.
          if (!large) continue;
          Bun.gc(true);
          await turn();
          if (this.closing) return;
        }
      }
      // The strong query vector's thread is idle once it has sent the vector: it scans half the
      // strong index alongside this thread, which is waiting on that vector to scan.
      if (this.indexes.strong && this.embedders.strong instanceof QueryEmbedder) this.embedders.strong.helpScans(this.indexes.strong.shareScans());
      if (this.indexes.fast) this.log.info('search indexes loaded', { ...this.figures(), ms: Math.round(performance.now() - started) });
      this.whole = true;
      if (!this.savedToken) this.changed();
    } catch (err) {
      this.log.error('the vector indexes could not be built; search is by keyword alone until the next start', { error: String(err) });
      for (const tier of TIERS) {
        this.indexes[tier]?.close();
        this.indexes[tier] = null;
      }
    }
  }

  /** A tier's stored unit vectors, counted a slice of passages at a time, the server answering between slices. */
  private async countStored(tier: VectorTier): Promise<number> {
    const last = await this.store.passages.lastId();
    let units = 0;
    for (let after = 0; ; after += COUNT_SLICE) {
      // The last slice is open-ended: passages stored since `last` was read count too.
      const end = after + COUNT_SLICE < last ? after + COUNT_SLICE : Number.MAX_SAFE_INTEGER;
      units += await this.store.vectors.countUnits(tier, after, end);
      if (end === Number.MAX_SAFE_INTEGER) return units;
      await turn();
    }
  }

  /**
   * Adds passages whose vectors of a tier the learning worker just stored. Never rejects: should
   * the store not give them, they are searchable by keyword until the next start, which says so.
   */
  async indexPassages(tier: VectorTier, passageIds: number[]): Promise<void> {
    const index = this.indexes[tier];
    if (!index || !passageIds.length) return;
    this.changed();
    try {
      for (const p of await this.store.vectors.get(tier, passageIds)) index.add(p.passageId, p.containerId, p.vectors);
    } catch (err) {
      this.log.error('passages could not be added to the vector index; they are found by keyword until the next start', { tier, passages: passageIds.length, error: String(err) });
    }
  }

  /** Drops forgotten passages from the in-memory indexes at once (their stored vectors are already gone). */
  forgetPassages(passageIds: number[]): void {
    if (passageIds.length) this.changed();
    for (const id of passageIds) {
      this.indexes.fast?.remove(id);
      this.indexes.strong?.remove(id);
    }
  }

  /**
   * Called before the indexes change: the saved copy no longer matches them, so its state is removed
   * (a restored index's rows file is rewritten by a compaction, and a backup put back by `engram
   * restore` may hold the old token), and a save is scheduled once they are quiet.
   */
  private changed(): void {
    this.savedToken = null;
    this.changedAt = Date.now();
    if (this.stateOnDisk) {
      for (const tier of TIERS) rmSync(indexFiles(this.dataDir, tier).state, { force: true });
      this.stateOnDisk = false;
    }
    this.scheduleSave(this.saveAfterMs);
  }

  /**
   * Saves the indexes while the server runs, so that a start after a crash or a power cut reads them
   * (~0.1 s at 100k passages) instead of rebuilding them (~5 s): once they have been unchanged for
   * `saveAfterMs`, no search has run for SAVE_IDLE_MS, and the last such save is SAVE_SPACING quiet
   * times past. Learning a backlog or refining keeps them changing, so they are saved once it rests.
   */
  private scheduleSave(delayMs: number): void {
    if (this.saveTimer || this.closing || this.saveAfterMs === 0) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      if (this.closing || !this.whole || this.savedToken) return;
      const now = Date.now();
      const wait = Math.max(this.changedAt + this.saveAfterMs - now, this.savedAt + SAVE_SPACING * this.saveAfterMs - now, SAVE_IDLE_MS - this.activity.idleFor());
      if (wait > 0) return this.scheduleSave(wait);
      this.saving = this.save('a start after a crash rebuilds them').finally(() => {
        this.saving = null;
      });
    }, delayMs);
    // A pending save never keeps the process alive.
    this.saveTimer.unref();
  }

  /**
   * Lets go of the embedders' threads and saves the indexes for the next start (see `save`), once
   * the server has stopped answering and learning has stopped. Indexes still as saved, with the
   * token standing, are not written again.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await this.loaded;
    await this.saving;
    await Promise.all([this.embedders.fast?.close?.(), this.embedders.strong?.close?.()]);
    if (this.whole) await this.save('the next start rebuilds them');
    this.indexes.fast?.close();
    this.indexes.strong?.close();
  }

  /**
   * Saves each index with a new token, then records the token in the store: a start trusts the
   * saved indexes only while it stands, and adding, removing or changing stored vectors drops it.
   * Nothing is saved unless each index holds as many vectors as the store (~0.1 s a tier to count at
   * 100k passages, in slices the server answers between): one that missed a change, or a store
   * changed by an older release that keeps no token, is rebuilt at the next start rather than kept.
   * Indexes still as saved are only counted. The server answers between tiers too. A save gives up
   * when the indexes change meanwhile, or the learning thread commits (a change on its way to them):
   * `changed` schedules the next.
   */
  private async save(otherwise: string): Promise<void> {
    const tiers = TIERS.filter((tier) => this.indexes[tier]);
    if (!tiers.length) return;
    const started = performance.now();
    const changedAt = this.changedAt;
    const commits = await this.store.commitsByOthers();
    const kept = this.savedToken !== null && (await this.store.settings.get(VECTOR_SNAPSHOT_SETTING)) === this.savedToken;
    const token = crypto.randomUUID();
    try {
      for (const tier of tiers) {
        const stored = await this.countStored(tier);
        if (this.changedAt !== changedAt) return;
        const { units } = this.indexes[tier]!;
        if (stored !== units) throw new Error(`the ${tier} index holds ${units} vectors, the store ${stored}`);
      }
      if (kept) return;
      this.savedAt = Date.now();
      this.stateOnDisk = true;
      for (const tier of tiers) {
        this.indexes[tier]!.save(indexFiles(this.dataDir, tier).state, token);
        await turn();
        if (this.changedAt !== changedAt) return;
      }
      const recorded = await this.store.transaction(async (tx) => {
        if ((await tx.commitsByOthers()) !== commits) return false;
        await tx.settings.set(VECTOR_SNAPSHOT_SETTING, token);
        return true;
      });
      if (!recorded) {
        this.log.info(`the search indexes were not saved: the store changed as they were written; ${otherwise}`);
        return this.scheduleSave(this.saveAfterMs);
      }
      this.savedToken = token;
      this.log.info('search indexes saved', { ...this.figures(), ms: Math.round(performance.now() - started) });
    } catch (err) {
      this.log.warn(`the search indexes were not saved; ${otherwise}`, { error: String(err) });
      for (const tier of tiers) rmSync(indexFiles(this.dataDir, tier).state, { force: true });
      this.stateOnDisk = false;
      this.savedToken = null;
    }
  }

  /** Whether a strong tier refines passages. */
  get refines(): boolean {
    return this.indexes.strong !== null;
  }

  /** Passages each tier's index holds; while the indexes load at start, those read so far. */
  figures(): IndexFigures {
    return { fast: this.indexes.fast?.count ?? 0, strong: this.indexes.strong?.count ?? 0 };
  }

  async search(accountId: string, containers: Container[], q: string, limit: number, traceId: string): Promise<SearchResponse> {
    await this.loaded;
    return this.activity.during(() => this.run(accountId, containers, q, limit, traceId));
  }

  private async run(accountId: string, containers: Container[], q: string, limit: number, traceId: string): Promise<SearchResponse> {
    const depth = Math.max(limit, CANDIDATES);
    // Asked first: the strong model embeds the query on its own thread while keyword search runs here.
    const strong = this.embedQuery('strong', q, containers.length);
    // A re-embedding of the fast tier under way leaves its vectors partial meanwhile: that tier is not searched.
    const reembedding = !!this.indexes.fast?.count && (await this.store.jobs.hasPending('reembed'));
    const queries: QueryVectors = { fast: reembedding ? null : this.embedQuery('fast', q, containers.length), strong };
    const searched: SearchResponse['containers'] = [];
    const keyword = await this.keywordSearch(accountId, containers, q, depth, traceId, searched);
    const reachable = containers.filter((_c, i) => !searched[i]!.error).map((c) => c.id);
    const vector = await this.nearest(queries, reachable, depth, traceId);
    const weights = this.indexes.strong?.count ? FUSION_WEIGHTS.refined : FUSION_WEIGHTS.fast;
    const fused = convexFusion([
      { hits: keyword, weight: weights.keyword },
      { hits: vector.fast, weight: weights.fast },
      { hits: vector.strong, weight: weights.strong },
    ]);
    const { tuning } = this;
    // Only the page's passages are read in full (with diversity or the content-poor step, the pool it is picked from).
    let pool = fused.slice(0, tuning.diversity || tuning.contentPoor ? limit * DIVERSITY_POOL : limit);
    const byId = new Map((await this.store.passages.getHits(accountId, pool.map((f) => f.item))).map((h) => [h.passageId, h]));
    const words = tuning.diversity || tuning.contentPoor ? wordsRead(byId) : null;
    if (tuning.contentPoor) pool = stepDownContentPoor(pool, (id) => words!.get(id), tuning.contentPoor);
    const page = tuning.diversity
      ? diversify(pool.filter((f) => byId.has(f.item)), limit, (id) => byId.get(id)?.documentId ?? null, overlapOf(words!), tuning.diversity)
      : pool.slice(0, limit);
    const names = new Map(containers.map((c) => [c.id, c.name]));
    const results: SearchResponse['results'] = [];
    for (const { item, score } of page) {
      const hit = byId.get(item);
      // A vector of a passage deleted since it was indexed is dropped here, and from the index.
      if (!hit) {
        this.changed();
        this.indexes.fast?.remove(item);
        this.indexes.strong?.remove(item);
        continue;
      }
      results.push({
        container: hit.containerId, container_name: names.get(hit.containerId)!, content: hit.content, score,
        document_id: hit.documentId, memory_id: hit.memoryId, custom_id: hit.customId, title: hit.title, position: hit.position,
        ...(hit.source ? { source: { document_id: hit.source.documentId, custom_id: hit.source.customId, passage: hit.source.position } } : {}),
      });
    }
    return { results, containers: searched };
  }

  /**
   * BM25 over each container, best first; a container whose search fails is reported in `searched`
   * instead of looking like an empty memory.
   */
  private async keywordSearch(
    accountId: string, containers: Container[], q: string, depth: number, traceId: string, searched: SearchResponse['containers'],
  ): Promise<Scored<number>[]> {
    const hits: KeywordHit[] = [];
    for (const c of containers) {
      try {
        hits.push(...(await this.store.passages.search(accountId, c.id, q, depth)));
        searched.push({ id: c.id, name: c.name });
      } catch (err) {
        this.log.error('search failed in a container', { trace_id: traceId, container: c.id, error: String(err) });
        searched.push({ id: c.id, name: c.name, error: { code: 'internal', message: 'Searching this container failed.' } });
      }
    }
    return hits.sort((a, b) => b.score - a.score).slice(0, depth).map((h) => ({ item: h.passageId, score: h.score }));
  }

  /**
   * The query's vector in a tier, or the error that kept it from one; null when the tier is not
   * searched (no embedder or no vectors yet, or no container).
   */
  private embedQuery(tier: VectorTier, q: string, containers: number): Promise<Float32Array | Error> | null {
    if (!this.indexes[tier]?.count || containers === 0) return null;
    const failure = (err: unknown) => (err instanceof Error ? err : new Error(String(err)));
    try {
      // Called now, not in a later microtask: the request must reach the model's thread before keyword search starts.
      return Promise.resolve(this.embedders[tier]!.embed([q])).then(([vector]) => vector!, failure);
    } catch (err) {
      return Promise.resolve(failure(err));
    }
  }

  /**
   * Each tier's nearest passages by cosine, above its model's similarity floor; empty lists when
   * keyword-only. A tier whose query embedding failed is left out of this search, and the other
   * still answers.
   */
  private async nearest(queries: QueryVectors, containerIds: string[], k: number, traceId: string): Promise<Record<VectorTier, Scored<number>[]>> {
    const nearest = async (tier: VectorTier): Promise<Scored<number>[]> => {
      const query = await queries[tier];
      if (!query || containerIds.length === 0) return [];
      if (query instanceof Error) {
        this.log.warn('query embedding failed; this search goes without that tier', { trace_id: traceId, tier, error: String(query) });
        return [];
      }
      const floor = this.embedders[tier]!.similarityFloor ?? 0;
      return this.indexes[tier]!.search(query, containerIds, k).filter((h) => h.score > floor).map((h) => ({ item: h.passageId, score: h.score }));
    };
    const [fast, strong] = await Promise.all([nearest('fast'), nearest('strong')]);
    return { fast, strong };
  }
}

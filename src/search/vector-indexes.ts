/**
 * The vector indexes of the two embedding tiers over their life: opened at start (read as last
 * saved, or built from the store's vectors), kept up to date as learning stores vectors and the
 * owner forgets passages, and closed. Saving them is saved-indexes.ts's, following a shared store's
 * feed feed-follower.ts's, and answering a query over them search-engine.ts's.
 */
import type { Logger } from '../log';
import { VECTOR_SNAPSHOT_SETTING } from '../storage/settings';
import { storedVectorPages } from '../storage/passages';
import type { Store, VectorTier } from '../storage/store';
import type { VectorFeed } from '../storage/vector-feed';
import { FeedFollower } from './feed-follower';
import { RefinementPace } from './refinement-pace';
import { RemovalFollower } from './removal-follower';
import { IndexSaver, openAtCommit, openByToken, type Stamp, type TierIndexes } from './saved-indexes';
import type { SearchActivity } from './search-activity';
import type { ScanShare } from './shared-scan';
import { countStored, LOAD_PAGE, TIERS, turn } from './store-pages';
import type { VectorHit } from './vector-index';

/** Figures for `GET /healthz`: how many passages each tier's index holds. */
export interface IndexFigures {
  fast: number;
  strong: number;
}

/** How the indexes were opened: what `open` read, for the constructor. */
interface Opened {
  tiers: TierIndexes;
  /** Tiers read from their saved copy: whole already. */
  restored: ReadonlySet<VectorTier>;
  /** What the saved copy is stamped with when every searched tier was read from it; else null. */
  token: string | null;
  /** On a shared store, its feed and the commit the indexes hold every change up to. */
  feed: { feed: VectorFeed; id: string; commit: number } | null;
  large: boolean;
  reembedding: boolean;
}

export class VectorIndexes {
  /** Settles once the indexes hold every vector stored at start; searches wait for it. */
  readonly loaded: Promise<void>;
  /** Whether the indexes hold every stored vector: not when their load failed or was cut short. */
  private whole = false;
  private closing = false;
  /** The lists' filing under way, or done (see `fileLists`). */
  private filing = Promise.resolve();
  /** Whether passages could not be added (see `indexPassages`): the indexes are then not saved on a shared store. */
  private missed = false;
  private readonly tiers: TierIndexes;
  /** Whether a re-embedding of the fast tier was queued at start: until it ends, that tier's vectors are partial. */
  private reembedding: boolean;
  private readonly saver: IndexSaver;
  /** On a shared store, what keeps the indexes current with its feed; null where one process owns the store. */
  private readonly follower: FeedFollower | null = null;
  /** Where one process owns the store, what drops the passages other connections deleted. */
  private readonly removals: RemovalFollower | null = null;
  /** On a shared store, the commit of the saved copy the indexes were read from at start; null when built from the store. */
  readonly restoredFrom: number | null = null;

  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly activity: SearchActivity,
    dataDir: string,
    saveAfterMs: number,
    opened: Opened,
  ) {
    this.tiers = opened.tiers;
    this.reembedding = opened.reembedding;
    const { feed } = opened;
    if (feed) {
      const followed = {
        tiers: this.tiers,
        indexPassages: (tier: VectorTier, passageIds: number[]) => this.indexPassages(tier, passageIds),
        changed: () => this.changed(),
        figures: () => this.figures(),
      };
      this.follower = new FeedFollower(feed.feed, followed, store, log, feed.commit);
      this.restoredFrom = opened.restored.size ? feed.commit : null;
    }
    // Only a process with indexes follows (and so drains) the record of deleted passages: a command
    // (`engram import` beside the server) has none, and draining it would hide them from the server.
    if (!feed && store.removals && TIERS.some((tier) => this.tiers[tier]))
      this.removals = new RemovalFollower(store.removals, (ids) => this.forgetPassages(ids), log);
    const stamp: Stamp = feed ? { feedId: feed.id, commit: () => this.follower!.applied } : { store };
    this.saver = new IndexSaver({
      tiers: this.tiers,
      stamp,
      token: opened.token,
      stateOnDisk: opened.restored.size > 0,
      dataDir,
      log,
      activity,
      saveAfterMs,
      // On a shared store, indexes that missed passages are not saved: their next start builds them whole.
      savable: () => this.whole && !(feed && this.missed),
      beforeSave: async () => {
        await this.removals?.catchUp();
        await this.fileLists();
      },
      figures: () => this.figures(),
    });
    this.loaded = this.load(opened.restored, opened.large);
    void this.loaded.then(() => (this.whole ? this.fileLists() : undefined));
    // Once whole: a passage deleted while the store's pages were read could otherwise come back with a page read before.
    const follower = this.follower ?? this.removals;
    if (follower) void this.loaded.then(() => (this.closing || !this.whole ? undefined : follower.start()));
  }

  /**
   * Opens an index for each tier that has `dimensions`: the one last saved (at a clean stop, or
   * while running) when its stamp still holds, read in a few milliseconds; otherwise a new one,
   * filled from the stored vectors (see `load`). Where one process owns the store, the stamp is a
   * token the store keeps until a stored vector is added, removed or changed. On a shared store
   * (`feed`), it is the feed's commit the copy holds, and the indexes follow the feed from it, or
   * from the head read before they are built. With no tier, search is keyword-only and the store and
   * the indexes' files are not touched. The indexes are saved once unchanged for `saveAfterMs` (0:
   * only at a clean stop) and no search (`activity`) has run for a while.
   */
  static async open(
    store: Store,
    log: Logger,
    dimensions: Record<VectorTier, number | null>,
    dataDir: string,
    activity: SearchActivity,
    saveAfterMs = 0,
    feed: VectorFeed | null = null,
  ): Promise<VectorIndexes> {
    const searched = TIERS.some((tier) => dimensions[tier]);
    let opened: Omit<Opened, 'large' | 'reembedding'>;
    if (!searched) {
      // A search without vectors (keyword-only) leaves the indexes' files and token alone.
      opened = { tiers: { strong: null, fast: null }, restored: new Set(), token: null, feed: null };
    } else if (feed) {
      const mark = await feed.mark();
      const { tiers, restored, commit, token } = openAtCommit(dimensions, dataDir, mark, log);
      opened = { tiers, restored, token, feed: { feed, id: mark.id, commit: commit ?? mark.head } };
    } else {
      const token = await store.settings.get(VECTOR_SNAPSHOT_SETTING);
      const { tiers, restored } = openByToken(dimensions, dataDir, token, log);
      const whole = restored.size > 0 && TIERS.every((tier) => !tiers[tier] || restored.has(tier));
      opened = { tiers, restored, token: whole ? token : null, feed: null };
    }
    // A shared store's copy is read whole or not at all; where one process owns the store, a tier not
    // read from its copy may still be loaded beside one that was.
    const large = searched && !(feed && opened.restored.size) && (await store.passages.lastId()) > LOAD_PAGE;
    const reembedding = !!dimensions.fast && (await store.jobs.hasPending('reembed'));
    const indexes = new VectorIndexes(store, log, activity, dataDir, saveAfterMs, { ...opened, large, reembedding });
    if (!large) await indexes.loaded;
    return indexes;
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
        const index = this.tiers[tier];
        if (!index || restored.has(tier)) continue;
        // Sized once: growing by doubling while loading would hold two copies at the switch.
        index.reserve(large ? await countStored(this.store, tier) : await this.store.vectors.countUnits(tier));
        for await (const page of storedVectorPages(this.store.vectors, tier, LOAD_PAGE)) {
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
      if (this.tiers.fast)
        this.log.info('search indexes loaded', { ...this.figures(), ms: Math.round(performance.now() - started) });
      this.whole = true;
      if (!this.saver.unchanged) this.saver.changed();
    } catch (err) {
      this.log.error('the vector indexes could not be built; search is by keyword alone until the next start', {
        error: String(err),
      });
      for (const tier of TIERS) {
        this.tiers[tier]?.close();
        this.tiers[tier] = null;
      }
    }
  }

  /**
   * Files a large index's codes in its inverted lists (inverted-lists.ts), a step at a time between
   * requests, once the indexes are whole and before a save: minutes of one core at a million
   * passages built from the store or read from a copy saved before the lists, while searches
   * answer by the whole scan, and then through the lists. Searches sent back to back slow it to a
   * step a second (SearchActivity.quiet). One filing at a time; stops at `settle`.
   * Lists filed anew are saved once the indexes are quiet (IndexSaver.refiled).
   */
  private fileLists(): Promise<void> {
    this.filing = this.filing.then(async () => {
      const started = performance.now();
      let refiled = false;
      try {
        for (const tier of TIERS) {
          const index = this.tiers[tier];
          if (!index || this.closing) continue;
          const before = JSON.stringify(index.inverted.state);
          // Between steps, requests are answered, and a search in flight ends first (its every
          // await would otherwise wait a step: seconds a search at a million passages).
          const between = async () => {
            await turn();
            await this.activity.quiet();
          };
          await index.organize(between, () => this.closing);
          refiled ||= JSON.stringify(index.inverted.state) !== before;
        }
      } catch (err) {
        this.log.warn('the search indexes could not be filed in lists; every search scans them whole', {
          error: String(err),
        });
      }
      if (!refiled) return;
      const lists = (tier: VectorTier) => this.tiers[tier]?.inverted.state.k ?? 0;
      this.log.info('search indexes filed in lists', {
        fast: lists('fast'),
        strong: lists('strong'),
        ms: Math.round(performance.now() - started),
      });
      if (this.saver.unchanged) this.saver.refiled();
    });
    return this.filing;
  }

  /** Resolves once the lists' filing under way (or the last) has ended. */
  listsFiled(): Promise<void> {
    return this.filing;
  }

  /**
   * On a shared store, resolves once the feed is applied up to its head as read now: what this
   * process's own learning has just stored is then searchable, as it is at once where one process
   * owns the store (the learning thread's reports wait for it: server.ts).
   */
  async caughtUp(): Promise<void> {
    await this.loaded;
    if (this.follower && this.whole) await this.follower.caughtUp();
  }

  /** How many times the indexes were read again from the store because the feed was pruned past them. */
  get rereads(): number {
    return this.follower?.rereads ?? 0;
  }

  /** How many passages a tier's index holds (0 when the tier is off). */
  count(tier: VectorTier): number {
    return this.tiers[tier]?.count ?? 0;
  }

  /** How fast refinement has reached passages lately (the strong index's growth). */
  readonly refinementPace = new RefinementPace();

  /** Whether a tier's index holds the passage (the strong tier: whether it is refined). */
  holds(tier: VectorTier, passageId: number): boolean {
    return this.tiers[tier]?.has(passageId) ?? false;
  }

  /** A tier's `k` passages nearest to `query` by cosine, among the containers given. */
  nearest(tier: VectorTier, query: Float32Array, containerIds: string[], k: number): VectorHit[] {
    return this.tiers[tier]?.search(query, containerIds, k) ?? [];
  }

  /** A passage's cosine with `query` in a tier (its best unit's); null when the tier does not hold it. */
  similarity(tier: VectorTier, passageId: number, query: Float32Array): number | null {
    return this.tiers[tier]?.similarity(passageId, query) ?? null;
  }

  /** A tier's scans, lent to a helper thread (shared-scan.ts); null when the tier is off. */
  shareScans(tier: VectorTier): ScanShare | null {
    return this.tiers[tier]?.shareScans() ?? null;
  }

  /**
   * Whether the fast tier's vectors are partial: a re-embedding queued at start (a new model) is
   * under way. Asks the store only until that re-embedding is seen to end; none is queued after start.
   */
  async fastTierPartial(): Promise<boolean> {
    if (this.reembedding) this.reembedding = await this.store.jobs.hasPending('reembed');
    return this.reembedding;
  }

  /**
   * Adds passages whose vectors of a tier the learning worker just stored. Never rejects: should
   * the store not give them, they are searchable by keyword until the next start, which says so.
   */
  async indexPassages(tier: VectorTier, passageIds: number[]): Promise<void> {
    const index = this.tiers[tier];
    if (!index || !passageIds.length) return;
    this.changed();
    try {
      const stored = await this.store.vectors.get(tier, passageIds);
      // Again: a save may have come while the store was read, and adding can rewrite the rows file.
      this.changed();
      for (const p of stored) index.add(p.passageId, p.containerId, p.vectors);
      if (tier === 'strong') this.refinementPace.record(index.count);
    } catch (err) {
      this.missed = true;
      this.log.error(
        'passages could not be added to the vector index; they are found by keyword until the next start',
        { tier, passages: passageIds.length, error: String(err) },
      );
    }
  }

  /**
   * Drops forgotten passages from the in-memory indexes at once (their stored vectors are already
   * gone, or never were).
   */
  forgetPassages(passageIds: number[]): void {
    const held = passageIds.filter((id) => TIERS.some((tier) => this.tiers[tier]?.has(id)));
    if (held.length) this.changed();
    for (const id of held) {
      this.tiers.fast?.remove(id);
      this.tiers.strong?.remove(id);
    }
  }

  /** Called before the indexes change: their saved copy no longer holds (see IndexSaver.changed). */
  private changed(): void {
    this.saver.changed();
  }

  /** Stops loading, following and saving while running: resolves once none is under way. The indexes still answer. */
  async settle(): Promise<void> {
    this.closing = true;
    const stopping = Promise.all([this.saver.stop(), this.follower?.stop(), this.removals?.stop()]);
    await this.loaded;
    await Promise.all([stopping, this.filing]);
  }

  /**
   * Saves the indexes for the next start (IndexSaver.saveAtStop), once the server has stopped
   * answering and learning has stopped, and frees them.
   */
  async close(): Promise<void> {
    await this.settle();
    await this.saver.saveAtStop();
    this.tiers.fast?.close();
    this.tiers.strong?.close();
  }

  /** Whether the strong tier has an index: its passages are embedded again in the background (refinement). */
  get keepsStrong(): boolean {
    return this.tiers.strong !== null;
  }

  /** Passages each tier's index holds; while the indexes load at start, those read so far. */
  figures(): IndexFigures {
    return { fast: this.count('fast'), strong: this.count('strong') };
  }
}

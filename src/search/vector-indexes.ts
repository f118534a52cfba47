/**
 * The vector indexes of the two embedding tiers over their life: opened at start (read as last
 * saved, or built from the store's vectors), kept up to date as learning stores vectors and the
 * owner forgets passages, saved while quiet and at a clean stop, and closed. Answering a query over
 * them is search-engine.ts's.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_DIR } from '../data-dir';
import type { Logger } from '../log';
import { VECTOR_SNAPSHOT_SETTING } from '../storage/settings';
import { storedVectorPages } from '../storage/passages';
import type { Store, VectorTier } from '../storage/store';
import type { VectorChange, VectorFeed } from '../storage/vector-feed';
import type { SearchActivity } from './search-activity';
import type { ScanShare } from './shared-scan';
import { VectorIndex, type VectorHit } from './vector-index';

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
const indexFiles = (dataDir: string, tier: VectorTier) => ({
  rows: join(dataDir, INDEX_DIR, `${tier}.rows`),
  state: join(dataDir, INDEX_DIR, `${tier}.state`),
});

/**
 * How long a search must be past before the indexes are saved while running: a save takes ~0.3 s at
 * 100k passages, in pieces of up to ~50 ms.
 */
const SAVE_IDLE_MS = 1000;
/**
 * Saves while running come at most this many quiet times apart: each writes every code again
 * (~50 MB at 100k passages).
 */
const SAVE_SPACING = 10;

/** The feed's commits read at a time while catching up. */
const FEED_PAGE = 200;
/**
 * The feed's newest commits kept when it is pruned (docs/decisions.md, "The vector feed's
 * retention"): a follower further behind reads its indexes again from the store. A learned
 * document is one or two commits, so this is tens of thousands of documents (~10 MB of feed).
 */
const FEED_KEPT = 50_000;
/** A follower prunes the feed each time it has applied this many commits since it last did. */
const PRUNE_EVERY = 1_000;

/** Lets the server answer what came in meanwhile. */
const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Figures for `GET /healthz`: how many passages each tier's index holds. */
export interface IndexFigures {
  fast: number;
  strong: number;
}

/** What stamps indexes saved on a shared store: the feed's id, and the last commit they hold. */
const feedToken = (feedId: string, commit: number) => `${feedId}@${commit}`;

/**
 * The indexes a replica of a shared store saved at its last clean stop, read back with the commit
 * they hold, when every searched tier's copy is there and readable, stamped with this database's
 * feed, at one commit the feed can still follow from (not below its floor, not past its head: a
 * database put back from an older dump). Otherwise null: they are built from the store.
 */
function restoreFromFeed(
  dimensions: Record<VectorTier, number | null>,
  dataDir: string,
  mark: { id: string; head: number; floor: number },
): { tiers: Record<VectorTier, VectorIndex | null>; commit: number } | null {
  const searched = TIERS.filter((tier) => dimensions[tier]);
  const tokens = new Set(searched.map((tier) => VectorIndex.savedToken(indexFiles(dataDir, tier).state)));
  const [token] = tokens;
  if (tokens.size !== 1 || !token?.startsWith(`${mark.id}@`)) return null;
  const commit = Number(token.slice(mark.id.length + 1));
  if (!Number.isSafeInteger(commit) || commit < mark.floor || commit > mark.head) return null;
  const tiers: Record<VectorTier, VectorIndex | null> = { strong: null, fast: null };
  for (const tier of searched) {
    const files = indexFiles(dataDir, tier);
    tiers[tier] = VectorIndex.restore(dimensions[tier]!, files.rows, files.state, token);
    if (!tiers[tier]) {
      for (const t of searched) tiers[t]?.close();
      return null;
    }
  }
  return { tiers, commit };
}

export class VectorIndexes {
  /** Settles once the indexes hold every vector stored at start; searches wait for it. */
  readonly loaded: Promise<void>;
  /** Whether the indexes hold every stored vector: not when their load failed or was cut short. */
  private whole = false;
  private closing = false;
  /** The token of the saved copy the indexes are, unchanged since; null once they change. */
  private savedToken: string | null;
  /**
   * Whether some tier's saved state may be on disk: removed at the first change, before the rows file
   * can be rewritten.
   */
  private stateOnDisk: boolean;
  /** When the indexes last changed (or became whole), and were last written. */
  private changedAt = 0;
  private savedAt = 0;
  private saveTimer: Timer | null = null;
  /** A save while running under way, which a stop lets finish first. */
  private saving: Promise<void> | null = null;
  /** Following a shared store's feed (see `follow`): the last commit applied, the catch-up under way, and the subscription. */
  private applied = 0;
  private catchingUp: Promise<void> | null = null;
  private behind = false;
  private listening: { close(): Promise<void> } | null = null;
  private feed: VectorFeed | null = null;
  /** The commit applied when this process last pruned the feed. */
  private prunedAt = 0;
  /** How many times the indexes were read again from the store because the feed was pruned past them. */
  rereads = 0;
  /** On a shared store, its feed's id, which stamps the indexes saved (see `close`); null where one process owns the store. */
  private feedId: string | null = null;
  /** Whether passages could not be added (see `indexPassages`): the indexes are then not saved on a shared store. */
  private missed = false;
  /** On a shared store, the commit of the saved copy the indexes were read from at start; null when built from the store. */
  restoredFrom: number | null = null;

  private constructor(
    private readonly store: Store,
    private readonly log: Logger,
    private readonly tiers: Record<VectorTier, VectorIndex | null>,
    private readonly activity: SearchActivity,
    private readonly dataDir: string,
    private readonly saveAfterMs: number,
    /** Whether a re-embedding of the fast tier was queued at start: until it ends, that tier's vectors are partial. */
    private reembedding: boolean,
    restored: ReadonlySet<VectorTier>,
    token: string | null,
    large: boolean,
  ) {
    this.stateOnDisk = restored.size > 0;
    this.savedToken = restored.size && TIERS.every((tier) => !tiers[tier] || restored.has(tier)) ? token : null;
    this.loaded = this.load(restored, large);
  }

  /**
   * Opens an index for each tier that has `dimensions`: the one last saved (at a clean stop, or
   * while running: see `scheduleSave`) when the store still holds its token (no stored vector
   * added, removed or changed since), read in a few milliseconds; otherwise a new one, filled from
   * the stored vectors (see `load`). With no tier, search is keyword-only and the store and the
   * indexes' files are not touched. The indexes are saved once unchanged for `saveAfterMs` (0: only
   * at a clean stop) and no search (`activity`) has run for a while.
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
    const started = performance.now();
    const tiers: Record<VectorTier, VectorIndex | null> = { strong: null, fast: null };
    const restored = new Set<VectorTier>();
    const searched = TIERS.filter((tier) => dimensions[tier]);
    let token: string | null = null;
    // On a shared store the indexes follow its feed (see `follow`) from the commit they hold: the
    // one their saved copy is stamped with (see `close`), or the head read before they are built.
    if (feed && searched.length) {
      const mark = await feed.mark();
      mkdirSync(join(dataDir, INDEX_DIR), { recursive: true, mode: 0o700 });
      const saved = restoreFromFeed(dimensions, dataDir, mark);
      for (const tier of TIERS) {
        const files = indexFiles(dataDir, tier);
        const size = dimensions[tier];
        if (size) tiers[tier] = saved?.tiers[tier] ?? new VectorIndex(size, files.rows);
        else rmSync(files.rows, { force: true });
        if (size && saved) restored.add(tier);
        else rmSync(files.state, { force: true });
      }
      if (saved)
        log.info('search indexes read as last saved; following the feed from their commit', {
          commit: saved.commit,
          head: mark.head,
          ms: Math.round(performance.now() - started),
        });
      const large = !saved && (await store.passages.lastId()) > LOAD_PAGE;
      const reembedding = !!dimensions.fast && (await store.jobs.hasPending('reembed'));
      const indexes = new VectorIndexes(store, log, tiers, activity, dataDir, 0, reembedding, restored, null, large);
      indexes.applied = saved?.commit ?? mark.head;
      indexes.prunedAt = indexes.applied;
      indexes.feedId = mark.id;
      indexes.restoredFrom = saved?.commit ?? null;
      indexes.feed = feed;
      void indexes.loaded.then(() => indexes.follow(feed));
      if (!large) await indexes.loaded;
      return indexes;
    }
    // A search without vectors (keyword-only) leaves the indexes' files and token alone.
    if (searched.length) {
      token = await store.settings.get(VECTOR_SNAPSHOT_SETTING);
      mkdirSync(join(dataDir, INDEX_DIR), { recursive: true, mode: 0o700 });
      for (const tier of TIERS) {
        const files = indexFiles(dataDir, tier);
        const size = dimensions[tier];
        if (size) {
          const saved = token ? VectorIndex.restore(size, files.rows, files.state, token) : null;
          if (saved) {
            restored.add(tier);
            tiers[tier] = saved;
            continue;
          }
          tiers[tier] = new VectorIndex(size, files.rows);
        } else {
          // A tier no longer searched (its embedder switched off) keeps no files.
          rmSync(files.rows, { force: true });
        }
        rmSync(files.state, { force: true });
      }
      if (restored.size)
        log.info('search indexes read as last saved', {
          tiers: [...restored],
          ms: Math.round(performance.now() - started),
        });
      if (token && restored.size < searched.length)
        log.warn('search indexes last saved could not be read; they are rebuilt from the store');
    }
    const large = searched.length > 0 && (await store.passages.lastId()) > LOAD_PAGE;
    const reembedding = !!dimensions.fast && (await store.jobs.hasPending('reembed'));
    const indexes = new VectorIndexes(
      store,
      log,
      tiers,
      activity,
      dataDir,
      saveAfterMs,
      reembedding,
      restored,
      token,
      large,
    );
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
        index.reserve(large ? await this.countStored(tier) : await this.store.vectors.countUnits(tier));
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
      if (!this.savedToken) this.changed();
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
   * Keeps the indexes current with what every process sharing the store stores and forgets: the
   * feed's commits after the one read before the load began are applied now, then each as it lands
   * (woken by its notification), and all those landed while the connection that listens was lost,
   * once it is back. Applying a commit twice changes nothing.
   */
  private async follow(feed: VectorFeed): Promise<void> {
    if (this.closing || !this.whole) return;
    try {
      this.listening = await feed.listen((commit) => {
        if (commit === null || commit > this.applied) this.catchUp(feed);
      });
    } catch (err) {
      this.log.error(
        "the store's vector feed cannot be followed; what other processes learn is searchable by keyword alone",
        { error: String(err) },
      );
    }
    this.catchUp(feed);
  }

  /**
   * On a shared store, resolves once the feed is applied up to its head as read now: what this
   * process's own learning has just stored is then searchable, as it is at once where one process
   * owns the store (the learning thread's reports wait for it: server.ts). A catch-up that applies
   * nothing (the store not answering) ends the wait; the next notification tries again.
   */
  async caughtUp(): Promise<void> {
    const feed = this.feed;
    await this.loaded;
    if (!feed || !this.whole) return;
    const head = await feed.head();
    for (let before = -1; this.applied < head && this.applied !== before && !this.closing; ) {
      before = this.applied;
      this.catchUp(feed);
      await this.catchingUp;
    }
  }

  /** Applies the feed's commits after the last one applied; one catch-up at a time, another after it when woken meanwhile. */
  private catchUp(feed: VectorFeed): void {
    if (this.catchingUp) {
      this.behind = true;
      return;
    }
    this.catchingUp = (async () => {
      do {
        this.behind = false;
        try {
          while (!this.closing) {
            const changes = await feed.since(this.applied, FEED_PAGE);
            if (changes === null) await this.reread(feed);
            else if (changes.length) await this.apply(changes);
            else break;
          }
          if (this.applied - this.prunedAt >= PRUNE_EVERY) {
            this.prunedAt = this.applied;
            await feed.prune(FEED_KEPT);
          }
        } catch (err) {
          // The next notification, or the reconnection's, tries again from the same commit.
          this.log.warn("the store's vector feed could not be read; trying again when it next changes", {
            error: String(err),
          });
        }
      } while (this.behind && !this.closing);
      this.catchingUp = null;
    })();
  }

  /**
   * Reads every stored vector into the indexes again, in place (they go on answering meanwhile),
   * and drops the passages the store no longer holds: the feed was pruned past the last commit
   * applied, so what changed since is unknown. The feed is then followed from its head as read
   * before: what changed while reading is applied again, which changes nothing.
   */
  private async reread(feed: VectorFeed): Promise<void> {
    const started = performance.now();
    const head = await feed.head();
    for (const tier of TIERS) {
      const index = this.tiers[tier];
      if (!index) continue;
      const stored = new Set<number>();
      for await (const page of storedVectorPages(this.store.vectors, tier, LOAD_PAGE)) {
        this.changed();
        for (const p of page) {
          index.add(p.passageId, p.containerId, p.vectors);
          stored.add(p.passageId);
        }
        await turn();
        if (this.closing) return;
      }
      for (const id of index.passageIds()) if (!stored.has(id)) index.remove(id);
    }
    this.applied = head;
    this.rereads++;
    this.log.warn(
      "the store's vector feed was pruned past this process's indexes; they were read again from the store",
      {
        ...this.figures(),
        ms: Math.round(performance.now() - started),
      },
    );
  }

  /** A page of the feed's changes, in order: a passage's vectors read once its removals before them are applied. */
  private async apply(changes: VectorChange[]): Promise<void> {
    const stored: Record<VectorTier, number[]> = { fast: [], strong: [] };
    const flush = async () => {
      for (const tier of TIERS) {
        await this.indexPassages(tier, stored[tier]);
        stored[tier] = [];
      }
    };
    for (const change of changes) {
      if (change.removed) {
        await flush();
        this.changed();
        this.tiers[change.tier]?.remove(change.passageId);
      } else {
        stored[change.tier].push(change.passageId);
      }
    }
    await flush();
    this.applied = changes.at(-1)!.commit;
  }

  /** How many passages a tier's index holds (0 when the tier is off). */
  count(tier: VectorTier): number {
    return this.tiers[tier]?.count ?? 0;
  }

  /** A tier's `k` passages nearest to `query` by cosine, among the containers given. */
  nearest(tier: VectorTier, query: Float32Array, containerIds: string[], k: number): VectorHit[] {
    return this.tiers[tier]?.search(query, containerIds, k) ?? [];
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
      for (const p of await this.store.vectors.get(tier, passageIds)) index.add(p.passageId, p.containerId, p.vectors);
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
    if (passageIds.length) this.changed();
    for (const id of passageIds) {
      this.tiers.fast?.remove(id);
      this.tiers.strong?.remove(id);
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
      const wait = Math.max(
        this.changedAt + this.saveAfterMs - now,
        this.savedAt + SAVE_SPACING * this.saveAfterMs - now,
        SAVE_IDLE_MS - this.activity.idleFor(),
      );
      if (wait > 0) return this.scheduleSave(wait);
      this.saving = this.save('a start after a crash rebuilds them').finally(() => {
        this.saving = null;
      });
    }, delayMs);
    // A pending save never keeps the process alive.
    this.saveTimer.unref();
  }

  /** Stops loading and saving while running: resolves once neither is under way. The indexes still answer. */
  async settle(): Promise<void> {
    this.closing = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await this.loaded;
    await this.saving;
    await this.listening?.close().catch(() => {});
    await this.catchingUp;
  }

  /**
   * Saves the indexes for the next start (see `save`), once the server has stopped answering and
   * learning has stopped, and frees them. Indexes still as saved, with the token standing, are not
   * written again. On a shared store they are saved at the feed's commit (`saveAtCommit`), unless
   * some passages could not be added: the next start then builds them whole from the store.
   */
  async close(): Promise<void> {
    await this.settle();
    if (this.whole && this.feedId) {
      if (!this.missed) this.saveAtCommit();
    } else if (this.whole) await this.save('the next start rebuilds them');
    this.tiers.fast?.close();
    this.tiers.strong?.close();
  }

  /**
   * On a shared store, saves each index stamped with the feed's id and the last commit applied,
   * which they hold every change up to (and perhaps some after: applied again, they change
   * nothing). A start reads them back and follows the feed from that commit (`restoreFromFeed`).
   */
  private saveAtCommit(): void {
    const token = feedToken(this.feedId!, this.applied);
    try {
      for (const tier of TIERS) this.tiers[tier]?.save(indexFiles(this.dataDir, tier).state, token);
      this.log.info('search indexes saved', { ...this.figures(), commit: this.applied });
    } catch (err) {
      this.log.warn('the search indexes were not saved; the next start builds them from the store', {
        error: String(err),
      });
      for (const tier of TIERS) rmSync(indexFiles(this.dataDir, tier).state, { force: true });
    }
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
    const tiers = TIERS.filter((tier) => this.tiers[tier]);
    if (!tiers.length) return;
    const started = performance.now();
    const changedAt = this.changedAt;
    const commits = await this.store.commitsByOthers();
    const kept =
      this.savedToken !== null && (await this.store.settings.get(VECTOR_SNAPSHOT_SETTING)) === this.savedToken;
    const token = crypto.randomUUID();
    try {
      for (const tier of tiers) {
        const stored = await this.countStored(tier);
        if (this.changedAt !== changedAt) return;
        const { units } = this.tiers[tier]!;
        if (stored !== units) throw new Error(`the ${tier} index holds ${units} vectors, the store ${stored}`);
      }
      if (kept) return;
      this.savedAt = Date.now();
      this.stateOnDisk = true;
      for (const tier of tiers) {
        this.tiers[tier]!.save(indexFiles(this.dataDir, tier).state, token);
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

  /** Whether the strong tier has an index: its passages are embedded again in the background (refinement). */
  get keepsStrong(): boolean {
    return this.tiers.strong !== null;
  }

  /** Passages each tier's index holds; while the indexes load at start, those read so far. */
  figures(): IndexFigures {
    return { fast: this.count('fast'), strong: this.count('strong') };
  }
}

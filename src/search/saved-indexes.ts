/**
 * The indexes' copy on disk, for the next start: where it is kept, when a copy is read back, and
 * saving it while the indexes rest and at a clean stop. A copy is trusted by what it is stamped
 * with. Where one process owns the store, a token recorded in the store, which any change to the
 * stored vectors drops. On a shared store, the feed's id and the last commit the copy holds: a start
 * reads the copy and follows the feed from that commit.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { INDEX_DIR } from '../data-dir';
import type { Logger } from '../log';
import { VECTOR_SNAPSHOT_SETTING } from '../storage/settings';
import type { Store, VectorTier } from '../storage/store';
import type { SearchActivity } from './search-activity';
import { countStored, TIERS, turn } from './store-pages';
import { VectorIndex } from './vector-index';

export type TierIndexes = Record<VectorTier, VectorIndex | null>;

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

/** Each tier's rows file, and its state saved for the next start. */
export const indexFiles = (dataDir: string, tier: VectorTier) => ({
  rows: join(dataDir, INDEX_DIR, `${tier}.rows`),
  state: join(dataDir, INDEX_DIR, `${tier}.state`),
});

/** What stamps indexes saved on a shared store: the feed's id, and the last commit they hold. */
const feedToken = (feedId: string, commit: number) => `${feedId}@${commit}`;

/**
 * Each searched tier's index, where one process owns the store: the copy last saved when the store
 * still holds its `token` (no stored vector added, removed or changed since), or a new one to fill
 * from the store. A tier no longer searched keeps no files.
 */
export function openByToken(
  dimensions: Record<VectorTier, number | null>,
  dataDir: string,
  token: string | null,
  log: Logger,
): { tiers: TierIndexes; restored: Set<VectorTier> } {
  const started = performance.now();
  const { tiers, restored } = openTiers(dimensions, dataDir, (tier, size) => {
    const files = indexFiles(dataDir, tier);
    return token ? VectorIndex.restore(size, files.rows, files.state, token) : null;
  });
  if (restored.size)
    log.info('search indexes read as last saved', {
      tiers: [...restored],
      ms: Math.round(performance.now() - started),
    });
  if (token && restored.size < TIERS.filter((tier) => dimensions[tier]).length)
    log.warn('search indexes last saved could not be read; they are rebuilt from the store');
  return { tiers, restored };
}

/**
 * Each searched tier's index, on a shared store: the copy last saved, with the commit it holds and
 * its stamp, when every searched tier's copy is there and readable, stamped with this database's
 * feed, at one commit the feed can still follow from (not below its floor, not past its head: a
 * database put back from an older dump); otherwise new ones to fill from the store, and no commit.
 */
export function openAtCommit(
  dimensions: Record<VectorTier, number | null>,
  dataDir: string,
  mark: { id: string; head: number; floor: number },
  log: Logger,
): { tiers: TierIndexes; restored: Set<VectorTier>; commit: number | null; token: string | null } {
  const started = performance.now();
  const saved = restoreAtCommit(dimensions, dataDir, mark);
  const { tiers, restored } = openTiers(dimensions, dataDir, (tier) => saved?.tiers[tier] ?? null);
  if (saved)
    log.info('search indexes read as last saved; following the feed from their commit', {
      commit: saved.commit,
      head: mark.head,
      ms: Math.round(performance.now() - started),
    });
  return saved
    ? { tiers, restored, commit: saved.commit, token: feedToken(mark.id, saved.commit) }
    : { tiers, restored, commit: null, token: null };
}

/**
 * Each searched tier's index: the one `restore` read from its copy, or a new one to fill from the
 * store. A tier no longer searched keeps no rows file, and a tier not read from its copy no state.
 */
function openTiers(
  dimensions: Record<VectorTier, number | null>,
  dataDir: string,
  restore: (tier: VectorTier, size: number) => VectorIndex | null,
): { tiers: TierIndexes; restored: Set<VectorTier> } {
  const tiers: TierIndexes = { strong: null, fast: null };
  const restored = new Set<VectorTier>();
  mkdirSync(join(dataDir, INDEX_DIR), { recursive: true, mode: 0o700 });
  for (const tier of TIERS) {
    const files = indexFiles(dataDir, tier);
    const size = dimensions[tier];
    const saved = size ? restore(tier, size) : null;
    if (saved) {
      restored.add(tier);
      tiers[tier] = saved;
      continue;
    }
    if (size) tiers[tier] = new VectorIndex(size, files.rows);
    else rmSync(files.rows, { force: true });
    rmSync(files.state, { force: true });
  }
  return { tiers, restored };
}

function restoreAtCommit(
  dimensions: Record<VectorTier, number | null>,
  dataDir: string,
  mark: { id: string; head: number; floor: number },
): { tiers: TierIndexes; commit: number } | null {
  const searched = TIERS.filter((tier) => dimensions[tier]);
  const tokens = new Set(searched.map((tier) => VectorIndex.savedToken(indexFiles(dataDir, tier).state)));
  const [token] = tokens;
  if (tokens.size !== 1 || !token?.startsWith(`${mark.id}@`)) return null;
  const commit = Number(token.slice(mark.id.length + 1));
  if (!Number.isSafeInteger(commit) || commit < mark.floor || commit > mark.head) return null;
  const tiers: TierIndexes = { strong: null, fast: null };
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

/**
 * What a saved copy is stamped with: a token recorded in the `store` one process owns, or on a
 * shared store the feed's id and the last commit the indexes hold every change up to (and perhaps
 * some after: applied again, they change nothing).
 */
export type Stamp = { store: Store } | { feedId: string; commit: () => number };

export interface SaverOptions {
  /** The indexes saved (the record vector-indexes.ts keeps). */
  tiers: TierIndexes;
  stamp: Stamp;
  /** The stamp of the copy the indexes were read from at start, unchanged since; null when some tier was built. */
  token: string | null;
  /** Whether some tier was read from its copy at start: that state is on disk. */
  stateOnDisk: boolean;
  dataDir: string;
  log: Logger;
  activity: SearchActivity;
  /** How long the indexes stay unchanged before they are saved while running; 0: only at a clean stop. */
  saveAfterMs: number;
  /** Whether the indexes may be saved now: they hold every stored vector they should. */
  savable: () => boolean;
  /**
   * Brings the indexes up to date with what other connections deleted, and files their codes in
   * their lists, before they are counted and saved.
   */
  beforeSave?: () => Promise<void>;
  figures: () => { fast: number; strong: number };
}

/**
 * Saves the indexes while the server runs, so that a start after a crash or a power cut reads them
 * (~0.1 s at 100k passages) instead of rebuilding them (~5 s), and at a clean stop.
 */
export class IndexSaver {
  /** The stamp of the saved copy the indexes are, unchanged since; null once they change. */
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
  private stopped = false;

  constructor(private readonly o: SaverOptions) {
    this.savedToken = o.token;
    this.stateOnDisk = o.stateOnDisk;
  }

  /** Whether the indexes are as a copy saved at start or since, unchanged. */
  get unchanged(): boolean {
    return this.savedToken !== null;
  }

  /**
   * Called before the indexes change: the saved copy no longer matches them, so its state is removed
   * (a restored index's rows file is rewritten by a compaction, and a backup put back by `engram
   * restore` may hold the old token), and a save is scheduled once they are quiet.
   */
  changed(): void {
    this.savedToken = null;
    this.changedAt = Date.now();
    if (this.stateOnDisk) this.dropState();
    this.scheduleSave(this.o.saveAfterMs);
  }

  /**
   * Called when indexes still as saved have been filed in lists their copy lacks (a copy saved
   * before the lists, or before the filing ended): they are saved again once quiet, or at the stop,
   * and the copy stays good meanwhile.
   */
  refiled(): void {
    this.savedToken = null;
    this.scheduleSave(this.o.saveAfterMs);
  }

  /** Stops saving while running: resolves once no save is under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.saveTimer) clearTimeout(this.saveTimer);
    await this.saving;
  }

  /**
   * Saves the indexes for the next start, once stopped (see `stop`). Indexes still as saved, with
   * their stamp standing, are not written again.
   */
  async saveAtStop(): Promise<void> {
    if (!this.o.savable()) return;
    if ('store' in this.o.stamp) await this.saveByToken(this.o.stamp.store, 'the next start rebuilds them');
    else if (!this.savedToken) await this.saveAtCommit(this.o.stamp.feedId, this.o.stamp.commit());
  }

  /**
   * Saves once the indexes have been unchanged for `saveAfterMs`, no search has run for
   * SAVE_IDLE_MS, and the last such save is SAVE_SPACING quiet times past. Learning a backlog or
   * refining keeps them changing, so they are saved once it rests.
   */
  private scheduleSave(delayMs: number): void {
    if (this.saveTimer || this.stopped || this.o.saveAfterMs === 0) return;
    this.saveTimer = setTimeout(() => {
      this.saveTimer = null;
      if (this.stopped || this.savedToken) return;
      const now = Date.now();
      const wait = Math.max(
        this.changedAt + this.o.saveAfterMs - now,
        this.savedAt + SAVE_SPACING * this.o.saveAfterMs - now,
        SAVE_IDLE_MS - this.o.activity.idleFor(),
      );
      if (wait > 0) return this.scheduleSave(wait);
      if (!this.o.savable()) return;
      const { stamp } = this.o;
      this.saving = (
        'store' in stamp
          ? this.saveByToken(stamp.store, 'a start after a crash rebuilds them')
          : this.saveAtCommit(stamp.feedId, stamp.commit())
      ).finally(() => {
        this.saving = null;
      });
    }, delayMs);
    // A pending save never keeps the process alive.
    this.saveTimer.unref();
  }

  /**
   * On a shared store, saves each index stamped with the feed's id and `commit`, the server
   * answering between tiers. A start reads them back and follows the feed from that commit
   * (`openAtCommit`). Gives up when the indexes change meanwhile: `changed` removes what was written
   * and schedules the next.
   */
  private async saveAtCommit(feedId: string, commit: number): Promise<void> {
    const started = performance.now();
    const changedAt = this.changedAt;
    const token = feedToken(feedId, commit);
    try {
      this.savedAt = Date.now();
      this.stateOnDisk = true;
      for (const tier of TIERS) {
        this.o.tiers[tier]?.save(indexFiles(this.o.dataDir, tier).state, token);
        if (!this.stopped) await turn();
        if (this.changedAt !== changedAt) return;
      }
      this.savedToken = token;
      this.o.log.info('search indexes saved', {
        ...this.o.figures(),
        commit,
        ms: Math.round(performance.now() - started),
      });
    } catch (err) {
      this.o.log.warn('the search indexes were not saved; the next start builds them from the store', {
        error: String(err),
      });
      this.dropState();
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
  private async saveByToken(store: Store, otherwise: string): Promise<void> {
    const tiers = TIERS.filter((tier) => this.o.tiers[tier]);
    if (!tiers.length) return;
    await this.o.beforeSave?.();
    const started = performance.now();
    const changedAt = this.changedAt;
    const commits = await store.commitsByOthers();
    const kept = this.savedToken !== null && (await store.settings.get(VECTOR_SNAPSHOT_SETTING)) === this.savedToken;
    const token = crypto.randomUUID();
    try {
      for (const tier of tiers) {
        const stored = await countStored(store, tier);
        if (this.changedAt !== changedAt) return;
        const { units } = this.o.tiers[tier]!;
        if (stored !== units) throw new Error(`the ${tier} index holds ${units} vectors, the store ${stored}`);
      }
      if (kept) return;
      this.savedAt = Date.now();
      this.stateOnDisk = true;
      for (const tier of tiers) {
        this.o.tiers[tier]!.save(indexFiles(this.o.dataDir, tier).state, token);
        await turn();
        if (this.changedAt !== changedAt) return;
      }
      const recorded = await store.transaction(async (tx) => {
        if ((await tx.commitsByOthers()) !== commits) return false;
        await tx.settings.set(VECTOR_SNAPSHOT_SETTING, token);
        return true;
      });
      if (!recorded) {
        this.o.log.info(`the search indexes were not saved: the store changed as they were written; ${otherwise}`);
        return this.scheduleSave(this.o.saveAfterMs);
      }
      this.savedToken = token;
      this.o.log.info('search indexes saved', { ...this.o.figures(), ms: Math.round(performance.now() - started) });
    } catch (err) {
      this.o.log.warn(`the search indexes were not saved; ${otherwise}`, { error: String(err) });
      this.dropState();
    }
  }

  private dropState(): void {
    for (const tier of TIERS) rmSync(indexFiles(this.o.dataDir, tier).state, { force: true });
    this.stateOnDisk = false;
    this.savedToken = null;
  }
}

/**
 * Following a shared store's vector feed (PostgreSQL): what every process sharing the store stores
 * and forgets is applied to this process's indexes, woken by the feed's notifications, caught up
 * after a lost connection, read again from the store when the feed was pruned past it; and the
 * feed pruned as it is followed.
 */
import type { Logger } from '../log';
import { storedVectorPages } from '../storage/passages';
import type { Repositories, VectorTier } from '../storage/store';
import type { VectorChange, VectorFeed } from '../storage/vector-feed';
import { LOAD_PAGE, TIERS, turn } from './store-pages';
import type { VectorIndex } from './vector-index';

/** The feed's commits read at a time while catching up. */
const FEED_PAGE = 200;
/**
 * A follower prunes the feed (to its retention: docs/decisions.md, "The vector feed's retention")
 * each time it has applied this many commits since it last did.
 */
const PRUNE_EVERY = 1_000;

/** What the follower changes: the indexes (vector-indexes.ts). */
export interface FollowedIndexes {
  /** Each tier's index, null when the tier is off (or its load failed). */
  readonly tiers: Record<VectorTier, VectorIndex | null>;
  /** Adds passages whose vectors of a tier were stored; never rejects. */
  indexPassages(tier: VectorTier, passageIds: number[]): Promise<void>;
  /** Called before the indexes change. */
  changed(): void;
  figures(): { fast: number; strong: number };
}

export class FeedFollower {
  /** The last commit applied: the indexes hold every change up to it (and perhaps some after). */
  applied: number;
  /** How many times the indexes were read again from the store because the feed was pruned past them. */
  rereads = 0;
  private catchingUp: Promise<void> | null = null;
  private behind = false;
  private stopped = false;
  private listening: { close(): Promise<void> } | null = null;
  /** The commit applied when this process last pruned the feed. */
  private prunedAt: number;

  /** Follows `feed` from `commit`, which the indexes hold every change up to. */
  constructor(
    private readonly feed: VectorFeed,
    private readonly indexes: FollowedIndexes,
    private readonly store: Pick<Repositories, 'vectors'>,
    private readonly log: Logger,
    commit: number,
  ) {
    this.applied = commit;
    this.prunedAt = commit;
  }

  /**
   * Keeps the indexes current: the feed's commits after the one they hold are applied now, then each
   * as it lands (woken by its notification), and all those landed while the connection that listens
   * was lost, once it is back. Applying a commit twice changes nothing.
   */
  async start(): Promise<void> {
    if (this.stopped) return;
    try {
      this.listening = await this.feed.listen((commit) => {
        if (commit === null || commit > this.applied) this.catchUp();
      });
      // Stopped while the subscription was being made: `stop` found none to close.
      if (this.stopped) await this.listening.close().catch(() => {});
    } catch (err) {
      this.log.error(
        "the store's vector feed cannot be followed; what other processes learn is searchable by keyword alone",
        { error: String(err) },
      );
    }
    this.catchUp();
  }

  /**
   * Resolves once the feed is applied up to its head as read now. A catch-up that applies nothing
   * (the store not answering) ends the wait; the next notification tries again.
   */
  async caughtUp(): Promise<void> {
    const head = await this.feed.head();
    for (let before = -1; this.applied < head && this.applied !== before && !this.stopped; ) {
      before = this.applied;
      this.catchUp();
      await this.catchingUp;
    }
  }

  /** Stops following: resolves once no catch-up is under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.listening?.close().catch(() => {});
    await this.catchingUp;
  }

  /** Applies the feed's commits after the last one applied; one catch-up at a time, another after it when woken meanwhile. */
  private catchUp(): void {
    if (this.catchingUp) {
      this.behind = true;
      return;
    }
    this.catchingUp = (async () => {
      do {
        this.behind = false;
        try {
          while (!this.stopped) {
            const changes = await this.feed.since(this.applied, FEED_PAGE);
            if (changes === null) await this.reread();
            else if (changes.length) await this.apply(changes);
            else break;
          }
          if (this.applied - this.prunedAt >= PRUNE_EVERY) {
            this.prunedAt = this.applied;
            await this.feed.prune();
          }
        } catch (err) {
          // The next notification, or the reconnection's, tries again from the same commit.
          this.log.warn("the store's vector feed could not be read; trying again when it next changes", {
            error: String(err),
          });
        }
      } while (this.behind && !this.stopped);
      this.catchingUp = null;
    })();
  }

  /**
   * Reads every stored vector into the indexes again, in place (they go on answering meanwhile),
   * and drops the passages the store no longer holds: the feed was pruned past the last commit
   * applied, so what changed since is unknown. The feed is then followed from its head as read
   * before: what changed while reading is applied again, which changes nothing.
   */
  private async reread(): Promise<void> {
    const started = performance.now();
    const head = await this.feed.head();
    for (const tier of TIERS) {
      const index = this.indexes.tiers[tier];
      if (!index) continue;
      const stored = new Set<number>();
      for await (const page of storedVectorPages(this.store.vectors, tier, LOAD_PAGE)) {
        this.indexes.changed();
        for (const p of page) {
          index.add(p.passageId, p.containerId, p.vectors);
          stored.add(p.passageId);
        }
        await turn();
        if (this.stopped) return;
      }
      for (const id of index.passageIds()) if (!stored.has(id)) index.remove(id);
    }
    this.applied = head;
    this.rereads++;
    this.log.warn(
      "the store's vector feed was pruned past this process's indexes; they were read again from the store",
      { ...this.indexes.figures(), ms: Math.round(performance.now() - started) },
    );
  }

  /** A page of the feed's changes, in order: a passage's vectors read once its removals before them are applied. */
  private async apply(changes: VectorChange[]): Promise<void> {
    const stored: Record<VectorTier, number[]> = { fast: [], strong: [] };
    const flush = async () => {
      for (const tier of TIERS) {
        await this.indexes.indexPassages(tier, stored[tier]);
        stored[tier] = [];
      }
    };
    for (const change of changes) {
      if (change.removed) {
        await flush();
        this.indexes.changed();
        this.indexes.tiers[change.tier]?.remove(change.passageId);
      } else {
        stored[change.tier].push(change.passageId);
      }
    }
    await flush();
    this.applied = changes.at(-1)!.commit;
  }
}

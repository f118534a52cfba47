/**
 * Keeping the indexes of a store one server owns (SQLite) rid of passages another connection
 * deleted: `engram import` replacing a changed note from its own process, or the learning thread
 * learning a document again. What the server itself forgets it drops at once (VectorIndexes
 * .forgetPassages); the store's record of deletions (storage/passage-removals.ts) brings the rest,
 * read every second and before the indexes are saved, and pruned once applied.
 */
import type { Logger } from '../log';
import type { PassageRemovals } from '../storage/passage-removals';

/** How often the record is read while the server runs. */
export const FOLLOW_MS = 1000;
/** Deletions read at a time (a container of a million passages forgotten is read in pages). */
const PAGE = 10_000;

export class RemovalFollower {
  private timer: Timer | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly removals: PassageRemovals,
    private readonly drop: (passageIds: number[]) => void,
    private readonly log: Logger,
  ) {}

  /** Applies the record now, then every second (a pending read never keeps the process alive). */
  start(): void {
    if (this.timer) return;
    void this.catchUp();
    this.timer = setInterval(() => void this.catchUp(), FOLLOW_MS);
    this.timer.unref();
  }

  /**
   * Drops every passage deleted so far from the indexes, and forgets the record of it. Every
   * deletion is applied from the first: passage ids are never used again, so dropping one the
   * indexes never held, or no longer hold, changes nothing. A failed read is tried at the next tick.
   */
  catchUp(): Promise<void> {
    this.running ??= (async () => {
      try {
        for (let page = await this.removals.since(0, PAGE); page.length; page = await this.removals.since(0, PAGE)) {
          this.drop(page.map((r) => r.passageId));
          await this.removals.prune(page.at(-1)!.seq);
        }
      } catch (err) {
        this.log.warn("the store's record of deleted passages could not be read; trying again in a second", {
          error: String(err),
        });
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Stops following; resolves once no read is under way. */
  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}

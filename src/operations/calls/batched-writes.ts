/**
 * Records written in batches (usage, the access log): one durable commit per request would put a
 * disk flush on every read. A crash can lose at most the last second of records, never a user's
 * data. A full disk costs no request its answer, nor a timer the process: the records wait, up to
 * a bound, and are written once the store takes writes again.
 */
import { isStorageFull } from '../../errors';

const FLUSH_MS = 1000;
const FLUSH_AT = 500;
/** Records kept while the store refuses writes; beyond that the oldest are dropped. */
const MAX_PENDING = 10_000;

export class BatchedWrites<T> {
  private pending: T[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The last write was refused: wait for the timer rather than try again on every record. */
  private refused = false;
  /** The write under way: a flush follows it, so batches are written one at a time and in order. */
  private writing: Promise<void> = Promise.resolve();

  /** `write` stores one batch in one transaction. */
  constructor(private readonly write: (batch: T[]) => Promise<void>) {}

  add(record: T): void {
    this.pending.push(record);
    if (this.pending.length >= FLUSH_AT && !this.refused) this.flushInBackground();
    else this.timer ??= setTimeout(() => this.flushInBackground(), FLUSH_MS);
  }

  /**
   * Writes what is pending; readers of the records call this first. A full disk keeps the records
   * for later and resolves; any other failure keeps them too, and rejects.
   */
  flush(): Promise<void> {
    const next = () => this.writePending();
    this.writing = this.writing.then(next, next);
    return this.writing;
  }

  /** A flush no reader waits for: its failure keeps the records for the next one, which reports it. */
  private flushInBackground(): void {
    this.flush().catch(() => {});
  }

  private async writePending(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      await this.write(batch);
      this.refused = false;
    } catch (err) {
      this.refused = true;
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      this.timer ??= setTimeout(() => this.flushInBackground(), FLUSH_MS);
      if (!isStorageFull(err)) throw err;
    }
  }
}

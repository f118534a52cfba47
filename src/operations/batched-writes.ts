/**
 * Records written in batches (usage, the access log): one durable commit per request would put a
 * disk flush on every read. A crash can lose at most the last second of records, never a user's
 * data. A full disk costs no request its answer, nor a timer the process: the records wait, up to
 * a bound, and are written once the store takes writes again.
 */
import { isStorageFull } from '../errors';

const FLUSH_MS = 1000;
const FLUSH_AT = 500;
/** Records kept while the store refuses writes; beyond that the oldest are dropped. */
const MAX_PENDING = 10_000;

export class BatchedWrites<T> {
  private pending: T[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The last write was refused: wait for the timer rather than try again on every record. */
  private refused = false;

  /** `write` stores one batch in one transaction. */
  constructor(private readonly write: (batch: T[]) => void) {}

  add(record: T): void {
    this.pending.push(record);
    if (this.pending.length >= FLUSH_AT && !this.refused) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is pending; readers of the records call this first. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    try {
      this.write(batch);
      this.refused = false;
    } catch (err) {
      if (!isStorageFull(err)) throw err;
      this.refused = true;
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    }
  }
}

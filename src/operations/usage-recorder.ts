/**
 * Usage records are written in batches: one durable commit per request would cost a disk flush on
 * every read. A crash can lose at most the last second of records, never a user's data.
 */
import { isStorageFull } from '../errors';
import type { Store, UsageOutcome } from '../storage/store';

type Entry = { accountId: string; credentialId: string; tool: string; outcome: UsageOutcome; status: number; at: number };

const FLUSH_MS = 1000;
const FLUSH_AT = 500;
/** Records kept while the store refuses writes (a full disk); beyond that the oldest are dropped. */
const MAX_PENDING = 10_000;

export class UsageRecorder {
  private pending: Entry[] = [];
  private timer: ReturnType<typeof setTimeout> | null = null;
  /** The last write was refused: wait for the timer rather than try again on every record. */
  private refused = false;

  constructor(private readonly store: Store) {}

  record(entry: Entry): void {
    this.pending.push(entry);
    if (this.pending.length >= FLUSH_AT && !this.refused) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /**
   * Writes what is pending in one transaction; readers of usage call this first. A full disk must
   * not cost a read its answer, nor a timer the process: the records wait and are written once the
   * store takes writes again.
   */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    const last = new Map<string, number>();
    try {
      this.store.transaction(() => {
        for (const e of batch) {
          this.store.recordUsage(e);
          last.set(e.credentialId, Math.max(last.get(e.credentialId) ?? 0, e.at));
        }
        for (const [id, at] of last) this.store.touchCredential(id, at);
      });
      this.refused = false;
    } catch (err) {
      if (!isStorageFull(err)) throw err;
      this.refused = true;
      this.pending = [...batch, ...this.pending].slice(-MAX_PENDING);
      this.timer = setTimeout(() => this.flush(), FLUSH_MS);
    }
  }
}

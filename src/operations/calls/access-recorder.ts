/**
 * The access log's writer and pruner. Entries are written in batches, as usage records are
 * (batched-writes.ts). Entries older than the retention are pruned in the background, a bounded
 * batch at a time, so no request waits behind a long delete.
 */
import type { Caller } from '../../auth/caller';
import { type Clock, DAY_MS } from '../../clock';
import type { Logger } from '../../log';
import type { AccessEntry, AccessItem, Store } from '../../storage/store';
import { BatchedWrites } from './batched-writes';

const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 1000;

export class AccessRecorder {
  private readonly writes: BatchedWrites<AccessEntry>;
  private pruner: ReturnType<typeof setInterval> | null = null;
  /** The retention pruning keeps to, once started (ENGRAM_ACCESS_LOG_DAYS); the owner's pages show it. */
  retentionDays: number | null = null;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly log: Logger,
  ) {
    this.writes = new BatchedWrites((batch) => store.accessLog.insert(batch));
  }

  /** Notes what a call of a key, consent token or share returned or wrote; written within a second. */
  record(caller: Exclude<Caller, { kind: 'owner' }>, operation: string, items: AccessItem[]): void {
    this.writes.add({
      accountId: caller.accountId,
      credentialId: caller.grant.credentialId,
      credentialKind: caller.kind,
      clientId: caller.kind === 'consent' ? (caller.credential.clientId ?? null) : null,
      operation,
      at: this.clock.now(),
      items,
    });
  }

  /** Writes what is pending; readers of the log call this first. */
  flush(): Promise<void> {
    return this.writes.flush();
  }

  /**
   * Deletes the entries older than `retentionDays`, a batch at a time, letting requests run between
   * batches; how many went.
   */
  async prune(retentionDays: number): Promise<number> {
    const before = this.clock.now() - retentionDays * DAY_MS;
    let removed = 0;
    for (;;) {
      const n = await this.store.accessLog.prune(before, PRUNE_BATCH);
      removed += n;
      if (n < PRUNE_BATCH) return removed;
      await new Promise((resolve) => setImmediate(resolve));
    }
  }

  /** Prunes now and then hourly, in the background, until `stop` (retention: ENGRAM_ACCESS_LOG_DAYS). */
  startPruning(retentionDays: number): void {
    this.retentionDays = retentionDays;
    const run = () =>
      this.prune(retentionDays).then(
        (n) => n && this.log.info('access log pruned', { entries: n, retention_days: retentionDays }),
        (err) => this.log.warn('access log pruning failed; tried again in an hour', { error: String(err) }),
      );
    void run();
    this.pruner = setInterval(run, PRUNE_EVERY_MS);
    this.pruner.unref?.();
  }

  /** Stops pruning and writes what is pending. */
  stop(): Promise<void> {
    if (this.pruner) clearInterval(this.pruner);
    this.pruner = null;
    return this.flush();
  }
}

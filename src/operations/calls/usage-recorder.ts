/** Usage records of keys and consent tokens, written in batches, with each credential's "last used". */
import type { Store, UsageEntry } from '../../storage/store';
import { BatchedWrites } from './batched-writes';

export class UsageRecorder {
  private readonly writes: BatchedWrites<UsageEntry>;

  constructor(store: Store) {
    this.writes = new BatchedWrites((batch) =>
      store.transaction(async (tx) => {
        await tx.usage.record(batch);
        const last = new Map<string, number>();
        for (const e of batch) last.set(e.credentialId, Math.max(last.get(e.credentialId) ?? 0, e.at));
        for (const [id, at] of last) await tx.credentials.touch(id, at);
      }),
    );
  }

  record(entry: UsageEntry): void {
    this.writes.add(entry);
  }

  /** Writes what is pending; readers of usage call this first. */
  flush(): Promise<void> {
    return this.writes.flush();
  }
}

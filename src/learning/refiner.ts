/**
 * Refinement: the strong embedding tier, run over passages the fast tier already made searchable.
 * Its work list is durable without a job row of its own: it is every passage that has no strong
 * vectors yet, so a refinement cut short by a restart or a kill goes on where its last committed
 * batch ended, and a newly learned passage joins the list by being stored.
 */
import type { Store } from '../storage/store';
import type { Embedder } from '../embedders/embedder';
import { embedPassages } from './embedding-units';

/** Passages refined and committed together: small, so that new work waits little for a batch to end. */
const REFINE_BATCH = 2;

export class Refiner {
  /** Passages up to this id have been looked at in this run; a deleted one is never looked at again. */
  private after = 0;
  /** Whether a batch was refined since the last look from the first passage. */
  private refinedSinceLook = false;

  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly onRefined: (passageIds: number[]) => void | Promise<void>,
  ) {}

  /** Refines one batch; returns how many passages it took (0: nothing left to refine). */
  async step(): Promise<number> {
    // Read first: a passage stored after it gets a higher id (ids are never reused), so once the
    // list is empty, every passage up to it is refined and the mark may move there.
    const last = await this.store.passages.lastId();
    let batch = await this.store.passages.listWithoutVectors('strong', this.after, REFINE_BATCH);
    // Passages learned again (an edited fact, a redone document) get new ids above the mark; ones
    // below it that lost their vectors are found by one look from the first passage once the list
    // runs out. That look reads every passage (~0.1 s at 100k) and the idle loop steps every
    // second, so it is not repeated until another batch is refined.
    if (batch.length === 0 && this.refinedSinceLook) {
      this.refinedSinceLook = false;
      batch = await this.store.passages.listWithoutVectors('strong', 0, REFINE_BATCH);
    }
    if (batch.length === 0) {
      this.after = Math.max(this.after, last);
      return 0;
    }
    const vectors = await embedPassages(this.embedder, batch, 'strong');
    const stored = await this.store.vectors.put(
      'strong',
      batch.map((p, i) => ({ passageId: p.id, vectors: vectors[i]! })),
    );
    this.after = batch.at(-1)!.id;
    this.refinedSinceLook = true;
    if (stored.length) await this.onRefined(stored);
    return batch.length;
  }
}

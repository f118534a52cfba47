/**
 * Refinement: the strong embedding tier, run over passages the fast tier already made searchable.
 * Its work list is durable without a job row of its own: it is every passage that has no strong
 * vectors yet, so a refinement cut short by a restart or a kill goes on where its last committed
 * batch ended, and a newly learned passage joins the list by being stored. It is taken in the order
 * a person will search (`PassageRepository.listForRefinement`): the containers searched lately
 * first, what the person added before what an import brought, the newest first.
 */
import type { Store } from '../storage/store';
import type { Embedder } from '../embedders/embedder';
import { embedPassages } from './embedding-units';

/**
 * Passages refined and committed together. Enough that their units fill the model's batches with
 * texts of like lengths (little padding) and the lanes beside the learning thread have batches to
 * take (refine-lane.ts); few enough that new work waits under a second for a step to end.
 */
export const REFINE_BATCH = 16;
/**
 * Passages planned at a time: the plan is one pass over the passages without strong vectors
 * (~1 s at a million), made again when it runs out or new passages are stored.
 */
const PLAN = 10_000;
/** A change in the containers searched lately plans again at most this often. */
const REPLAN_MS = 10_000;

export class Refiner {
  /** Passage ids to refine next, in order. */
  private plan: number[] = [];
  /** The last passage id, and the containers put first, when the plan was made. */
  private plannedLast = -1;
  private plannedFirst = '';
  private plannedAt = 0;
  /** Whether the last plan found nothing to refine: until a passage is stored, nothing is. */
  private caughtUp = false;

  /**
   * `containersFirst` says which containers were searched lately, most recent first
   * (search/search-activity.ts): their passages are refined first.
   */
  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly onRefined: (passageIds: number[]) => void | Promise<void>,
    private readonly batch = REFINE_BATCH,
    private readonly containersFirst: () => string[] = () => [],
  ) {}

  /** Refines one batch; returns how many passages it took (0: nothing left to refine). */
  async step(): Promise<number> {
    // Ids are never reused: a passage stored (learned, or learned again) since the plan raises this.
    const last = await this.store.passages.lastId();
    const first = this.containersFirst();
    const searchedElsewhere = first.join('\n') !== this.plannedFirst && Date.now() - this.plannedAt >= REPLAN_MS;
    if (last !== this.plannedLast || searchedElsewhere || (this.plan.length === 0 && !this.caughtUp)) {
      this.plan = await this.store.passages.listForRefinement('strong', first, PLAN);
      [this.plannedLast, this.plannedFirst, this.plannedAt] = [last, first.join('\n'), Date.now()];
      this.caughtUp = this.plan.length === 0;
    }
    const ids = this.plan.splice(0, this.batch);
    if (ids.length === 0) return 0;
    // A passage deleted since the plan was made is not read, and one deleted while it is embedded not stored.
    const batch = await this.store.passages.getTexts(ids);
    if (batch.length === 0) return ids.length;
    const vectors = await embedPassages(this.embedder, batch, 'strong');
    const stored = await this.store.vectors.put(
      'strong',
      batch.map((p, i) => ({ passageId: p.id, vectors: vectors[i]! })),
    );
    if (stored.length) await this.onRefined(stored);
    return ids.length;
  }
}

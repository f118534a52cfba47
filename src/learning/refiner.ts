/**
 * Refinement: the strong embedding tier, run over passages the fast tier already made searchable.
 * Its work list is durable without a job row of its own: it is every passage that has no strong
 * vectors yet, so a refinement cut short by a restart or a kill goes on where its last committed
 * batch ended, and a newly learned passage joins the list by being stored. It is taken in the order
 * a person will search (`PassageRepository.listForRefinement`): the containers searched lately
 * first, what the person added before what an import brought, the newest first.
 *
 * Passage ids grow as passages are learned, so the list is planned a window of ids at a time, the
 * newest window first, and each window's pass over the store stays short however large the store
 * (a pass over a million passages took ~6 s here, on the thread that learns new documents too):
 * passages stored since the last plan are planned ahead of the rest, and once a window is refined
 * the plan moves down to the one below it.
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
/** Passages planned at a time. */
const PLAN = 10_000;
/** Passage ids a plan looks through at a time: a pass over this many took ~0.5 s here. */
const WINDOW = 100_000;
/** A change in the containers searched lately plans the window again at most this often. */
const REPLAN_MS = 10_000;

export class Refiner {
  /** Passage ids to refine next, in order. */
  private plan: number[] = [];
  /** The window of ids the plan is of, (from, to]; null before the first plan of this run. */
  private window: { from: number; to: number } | null = null;
  /** The highest passage id planned so far: what is stored above it is new. */
  private seen = 0;
  /** The containers put first, and when, at the window's last plan. */
  private plannedFirst = '';
  private plannedAt = 0;
  /** Every window down to the first passage was found refined: until a passage is stored, nothing is left. */
  private caughtUp = false;

  private readonly batch: number;
  private readonly planSize: number;
  private readonly windowSize: number;
  private readonly containersFirst: () => string[];

  /**
   * `containersFirst` says which containers were searched lately, most recent first
   * (search/search-activity.ts): their passages are refined first. `batch`, `plan` and `window` are
   * REFINE_BATCH's, PLAN's and WINDOW's unless told (benchmarks and tests).
   */
  constructor(
    private readonly store: Store,
    private readonly embedder: Embedder,
    private readonly onRefined: (passageIds: number[]) => void | Promise<void>,
    options: { batch?: number; plan?: number; window?: number; containersFirst?: () => string[] } = {},
  ) {
    this.batch = options.batch ?? REFINE_BATCH;
    this.planSize = options.plan ?? PLAN;
    this.windowSize = options.window ?? WINDOW;
    this.containersFirst = options.containersFirst ?? (() => []);
  }

  /** Refines one batch; returns how many passages it took (0: nothing left to refine). */
  async step(): Promise<number> {
    await this.replan();
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

  /** Brings the plan up to date: new passages first, the window planned again or moved down as needed. */
  private async replan(): Promise<void> {
    // Ids are never reused: a passage stored (learned, or learned again) since the last plan is above `seen`.
    const last = await this.store.passages.lastId();
    const first = this.containersFirst();
    let planned = false;
    if (!this.window) {
      this.window = { from: Math.max(0, last - this.windowSize), to: last };
      this.seen = last;
      await this.planWindow(first);
      planned = true;
    } else if (last > this.seen) {
      const fresh = await this.store.passages.listForRefinement(
        'strong',
        first,
        { after: this.seen, upTo: last },
        this.planSize,
      );
      this.plan = [...fresh, ...this.plan];
      this.seen = last;
      if (fresh.length) this.caughtUp = false;
      // More were stored than a plan holds (an import learned in one go): once this plan runs out,
      // the windows are walked again from the newest down, so that none above the old window is left out.
      if (fresh.length === this.planSize) this.window = { from: Math.max(0, last - this.windowSize), to: last };
    }
    if (
      !planned &&
      !this.caughtUp &&
      first.join('\n') !== this.plannedFirst &&
      Date.now() - this.plannedAt >= REPLAN_MS
    ) {
      await this.planWindow(first);
      planned = true;
    }
    // The window ran out: plan it again (it may hold more than one plan), or move down to the one below.
    while (this.plan.length === 0 && !this.caughtUp) {
      if (!planned) {
        await this.planWindow(first);
        if (this.plan.length) break;
      }
      if (this.window.from === 0) {
        this.caughtUp = true;
        break;
      }
      this.window = { from: Math.max(0, this.window.from - this.windowSize), to: this.window.from };
      planned = false;
    }
  }

  /** Plans the window again; passages planned from above it (stored since) stay first. */
  private async planWindow(first: string[]): Promise<void> {
    const { from, to } = this.window!;
    const above = this.plan.filter((id) => id > to);
    this.plan = [
      ...above,
      ...(await this.store.passages.listForRefinement('strong', first, { after: from, upTo: to }, this.planSize)),
    ];
    [this.plannedFirst, this.plannedAt] = [first.join('\n'), Date.now()];
  }
}

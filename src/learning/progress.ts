/**
 * How far learning has got, for `GET /healthz` and the owner's pages: totals of the whole server,
 * never any account's data.
 */
import type { SearchEngine } from '../search/search-engine';
import type { Repositories } from '../storage/store';

export interface LearningProgress {
  /** Learning jobs queued or running. */
  queue: number;
  /** Passages stored. */
  passages: number;
  /**
   * Passages the strong tier has refined, as its search index holds them (for the first seconds
   * of a start on a large store, those it has read so far); null when refinement is off.
   */
  refined: number | null;
}

export async function learningProgress(services: { store: Repositories; search: SearchEngine }): Promise<LearningProgress> {
  return {
    queue: await services.store.jobs.countPending(),
    passages: await services.store.passages.count(),
    refined: services.search.refines ? services.search.figures().strong : null,
  };
}

/** "N % refined", or null when there is nothing to say (refinement off, or nothing stored). */
export function refinedPercent(progress: LearningProgress): number | null {
  if (progress.refined === null || progress.passages === 0) return null;
  return Math.floor((100 * Math.min(progress.refined, progress.passages)) / progress.passages);
}

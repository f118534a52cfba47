/**
 * The search levers beyond fusion, each with a strength (0: off), so that the retrieval benchmark
 * can measure each alone and at several strengths (bench/retrieval-quality.ts). Only levers that
 * carried over to both dev sets are here; docs/performance.md ("Levers") has the table that decided
 * each, and the commit that holds the code of those dropped (feedback on either side, neighbours in
 * time).
 */
export interface SearchTuning {
  /**
   * Near-duplicates of a hit, and more passages of its document, step down the page (diversity.ts):
   * by how much at most.
   */
  diversity: number;
  /** Passages with few content words (greetings, acknowledgements) step down (content-poor.ts): by how much at most. */
  contentPoor: number;
}

export const DEFAULT_TUNING: SearchTuning = { diversity: 0.3, contentPoor: 0.4 };

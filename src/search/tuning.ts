/**
 * The search levers beyond fusion, each with a strength (0: off), so that the retrieval benchmark
 * can measure each alone and at several strengths (bench/retrieval-quality.ts). DEFAULT_TUNING
 * switches on only the levers that carried over to both dev sets; docs/performance.md ("Levers")
 * has the table that decided each.
 */
export interface SearchTuning {
  /** A second keyword search with words of the best hits (keyword-feedback.ts): its list's weight as a share of keyword search's. */
  keywordFeedback: number;
  /** A second scan of each tier with the query moved toward the best hits' vectors (vector-feedback.ts): how far. */
  vectorFeedback: number;
  /** Near-duplicates of a hit, and more passages of its document, step down the page (diversity.ts): by how much at most. */
  diversity: number;
  /** Passages of documents added just before and after a hit compete as candidates (time-neighbours.ts): the share of the hit's score they borrow. */
  neighbours: number;
  /** Passages with few content words (greetings, acknowledgements) step down (content-poor.ts): by how much at most. */
  contentPoor: number;
}

export const DEFAULT_TUNING: SearchTuning = { keywordFeedback: 0, vectorFeedback: 0, diversity: 0.3, neighbours: 0, contentPoor: 0.4 };

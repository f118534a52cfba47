/**
 * The search levers beyond fusion, each with a strength (0: off), so that the retrieval benchmark
 * can measure each alone and at several strengths (bench/retrieval-quality.ts). Only levers that
 * real people's talk rewards, and that cost the generated set no more than 0.01 recall@10, are here;
 * docs/performance.md ("Levers" of issues 34 and 39) has the tables that decided each, and the
 * commits that hold the code of those dropped.
 */
export interface SearchTuning {
  /**
   * Passages with few content words of their own (greetings, acknowledgements) step down
   * (content-poor.ts): by how much at most.
   */
  contentPoor: number;
  /** Passages that ask rather than tell step down (asking.ts): by how much at most. */
  asking: number;
  /** Passages dated on a day the question names, or the day after, step up (dated.ts): by how much. */
  dated: number;
  /** Passages spoken by the one person the question names step up (speaker.ts): by how much. */
  speaker: number;
  /** Each fused candidate scored by every tier that holds it (every-tier.ts): 1 on, 0 off. */
  everyTier: number;
}

export const DEFAULT_TUNING: SearchTuning = {
  contentPoor: 0.4,
  asking: 0.1,
  dated: 0.2,
  speaker: 0.2,
  everyTier: 1,
};

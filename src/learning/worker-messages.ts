/** The messages between the HTTP thread and the learning worker. */
import type { VectorTier } from '../storage/store';

export type ToWorker = { type: 'wake' } | { type: 'drain'; id: number } | { type: 'stop' };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'indexed'; tier: VectorTier; passageIds: number[] }
  | { type: 'drained'; id: number; jobs: number }
  | { type: 'stopped' };

/** The messages between the HTTP thread and the learning worker, and what the worker starts with. */
import type { Config } from '../config';
import type { VectorTier } from '../storage/store';
import type { EmbedderIdentity, SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import type { OnnxRuntimeFiles } from '../embedders/onnx-library';

export interface WorkerData {
  config: Config;
  vectorExtension: string | null;
  /** The compiled binary's embedded ONNX Runtime, or null in a checkout. */
  onnxRuntime: OnnxRuntimeFiles | null;
  /** A worker before this one died: the jobs it had claimed are still marked running. */
  restarted: boolean;
  /** The strong model's identity as the HTTP thread computed it (null without a strong tier). */
  strongIdentity: EmbedderIdentity | null;
  /** Whether the HTTP thread will send the query thread's strong model (`strong-model`) for refinement to run. */
  sharedStrong: boolean;
  /**
   * The HTTP thread's record of searches in flight (search/search-activity.ts), for refinement to
   * keep out of their way.
   */
  searches: SharedArrayBuffer;
}

export type ToWorker =
  | { type: 'wake' }
  | { type: 'drain'; id: number }
  | { type: 'stop' }
  /** The query thread's loaded strong model, or why there is none. */
  | { type: 'strong-model'; shared: SharedOnnxEmbedder }
  | { type: 'strong-model'; error: string };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'indexed'; tier: VectorTier; passageIds: number[] }
  | { type: 'drained'; id: number; jobs: number }
  /** The drain stopped on a failure, such as a store that refuses writes. */
  | { type: 'drained'; id: number; error: string }
  | { type: 'stopped' };

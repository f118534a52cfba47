/**
 * The messages between the search engine's query embedder (query-embedder.ts) and its thread
 * (query-embedder-thread.ts).
 */
import type { SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import type { ScanShare } from './shared-scan';

/** A query's texts to embed, the index's scans to help with, or the end. */
export type QueryRequest = { id: number; texts: string[] } | { scans: ScanShare } | { close: true };
/** A query's vectors or why there are none, the model loaded (to share with learning), or the end. */
export type QueryReply =
  | { id: number; vectors: Float32Array[] }
  | { id: number; error: string }
  | { ready: SharedOnnxEmbedder }
  | { closed: true };

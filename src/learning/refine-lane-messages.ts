/** What a refinement lane's thread starts with, and the messages between it and the learning thread (refine-lane.ts). */
import type { SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import type { OnnxRuntimeFiles } from '../embedders/onnx-library';

export interface LaneData {
  shared: SharedOnnxEmbedder;
  onnxRuntime: OnnxRuntimeFiles | null;
}
/** A batch of encoded texts to run. */
export type LaneRequest = { id: number; rows: number[][] };
/** Its vectors, in order, or why there are none. */
export type LaneAnswer = { id: number; vectors: Float32Array[] } | { id: number; error: string };

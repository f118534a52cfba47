/**
 * A refinement lane's thread (refine-lane.ts starts it): it runs batches of the strong model on the
 * session the query thread loaded, beside the learning thread, so that refinement uses a second
 * core. The learning thread tokenizes, batches and waits for quiet between searches; this thread
 * only runs the model and pools, at the learning thread's low priority.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { OnnxEmbedder } from '../embedders/onnx-embedder';
import { useEmbeddedOnnxRuntime } from '../embedders/onnx-library';
import { LEARNING_NICE, lowerThreadPriority } from './thread-priority';
import type { LaneAnswer, LaneData, LaneRequest } from './refine-lane-messages';

const port = parentPort!;
const { shared, onnxRuntime } = workerData as LaneData;
useEmbeddedOnnxRuntime(onnxRuntime);
const embedder = await OnnxEmbedder.attach(shared);
lowerThreadPriority(LEARNING_NICE);
port.on('message', ({ id, rows }: LaneRequest) => {
  let answer: LaneAnswer;
  try {
    answer = { id, vectors: embedder.runEncoded(rows) };
  } catch (err) {
    answer = { id, error: String(err) };
  }
  port.postMessage(answer, 'vectors' in answer ? answer.vectors.map((v) => v.buffer as ArrayBuffer) : []);
});
port.postMessage({ ready: true });

/**
 * The query embedder's thread: the strong model, answering one query at a time. ONNX Runtime runs
 * synchronously, so on the HTTP thread every search would hold every other request for the
 * model's few milliseconds; here it holds only this thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadOnnxEmbedder } from '../learning/embedder/onnx-embedder';
import { type OnnxRuntimeFiles, useEmbeddedOnnxRuntime } from '../learning/embedder/onnx-runtime';
import type { QueryReply, QueryRequest } from './query-embedder';

const port = parentPort!;
useEmbeddedOnnxRuntime((workerData as { onnxRuntime: OnnxRuntimeFiles | null }).onnxRuntime);
try {
  const embedder = await loadOnnxEmbedder();
  port.on('message', async ({ id, texts }: QueryRequest) => {
    try {
      const vectors = await embedder.embed(texts);
      port.postMessage({ id, vectors } satisfies QueryReply, vectors.map((v) => v.buffer as ArrayBuffer));
    } catch (err) {
      port.postMessage({ id, error: String(err) } satisfies QueryReply);
    }
  });
  port.postMessage({ ready: { id: embedder.id, dimensions: embedder.dimensions, similarityFloor: embedder.similarityFloor } });
} catch (err) {
  port.postMessage({ failed: String(err) });
}

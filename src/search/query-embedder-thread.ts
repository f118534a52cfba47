/**
 * The query embedder's thread: the strong model, answering one query at a time. ONNX Runtime runs
 * synchronously, so on the HTTP thread every search would hold every other request for the
 * model's few milliseconds; here it holds only this thread. The session it opens is the process's
 * one: the learning thread runs it too (query-embedder.ts), and this thread frees it when told to
 * close. Once the search engine asks, it also scans part of each tier's index for each search
 * while it is otherwise idle (shared-scan.ts). A model that fails to load, or is not the
 * one the server was started with, throws here, which ends the thread.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { loadOnnxEmbedder } from '../embedders/onnx-embedder';
import { type OnnxRuntimeFiles, useEmbeddedOnnxRuntime } from '../embedders/onnx-library';
import type { QueryReply, QueryRequest } from './query-messages';
import { helpWithScans } from './shared-scan';

const port = parentPort!;
const { onnxRuntime, id } = workerData as { onnxRuntime: OnnxRuntimeFiles | null; id: string };
useEmbeddedOnnxRuntime(onnxRuntime);
const embedder = await loadOnnxEmbedder(undefined, { knownId: id });
if (embedder.id !== id) throw new Error(`the model loaded as ${embedder.id}, not ${id}`);
port.postMessage({ ready: embedder.share() } satisfies QueryReply);
port.on('message', async (request: QueryRequest) => {
  if ('close' in request) {
    embedder.close();
    port.postMessage({ closed: true } satisfies QueryReply);
    return;
  }
  if ('scans' in request) {
    // Runs for the thread's life, in the gaps between queries. A helper that cannot start leaves
    // every scan to the searching thread, which scans whatever no helper takes anyway.
    helpWithScans(request.scans).catch(() => {});
    return;
  }
  const { id, texts } = request;
  try {
    const vectors = await embedder.embed(texts);
    port.postMessage(
      { id, vectors } satisfies QueryReply,
      vectors.map((v) => v.buffer as ArrayBuffer),
    );
  } catch (err) {
    port.postMessage({ id, error: String(err) } satisfies QueryReply);
  }
});

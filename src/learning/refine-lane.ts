/**
 * Refinement's other cores: each lane is a thread of its own (refine-lane-thread.ts) that runs the
 * strong model's batches on the session the learning thread took up from the query thread, so the
 * process still holds the model once. The learning thread hands a lane a batch once quiet comes
 * between searches (the same wait as its own runs), so searches still come first; at the learning
 * thread's low priority, a lane takes only a core nothing else wants.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { OnnxLane, SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import { embeddedOnnxRuntime } from '../embedders/onnx-library';
import type { LaneAnswer, LaneData, LaneRequest } from './refine-lane-messages';

/** Threads refinement runs on by default, the learning thread's included: one a core, up to this many. */
const MAX_THREADS = 4;

/** As in the supervisor: in a compiled binary the thread's code is an entrypoint of its own (scripts/build.ts). */
const ENTRY = import.meta.url.includes('/$bunfs/')
  ? './src/learning/refine-lane-thread.ts'
  : new URL('./refine-lane-thread.ts', import.meta.url);

/**
 * The lanes to run beside the learning thread so that refinement runs on `threads` threads in all
 * (ENGRAM_REFINE_THREADS; 0: one a core, up to MAX_THREADS): none on one.
 */
export function refineLanes(shared: SharedOnnxEmbedder, threads: number): OnnxLane[] {
  const lanes = (threads || Math.min(MAX_THREADS, availableParallelism())) - 1;
  return Array.from({ length: Math.max(0, lanes) }, () => new RefineLane(shared));
}

class RefineLane implements OnnxLane {
  private readonly worker: Worker;
  private readonly pending = new Map<number, PromiseWithResolvers<Float32Array[]>>();
  private next = 0;
  private failure: Error | null = null;

  constructor(shared: SharedOnnxEmbedder) {
    this.worker = new Worker(ENTRY, { workerData: { shared, onnxRuntime: embeddedOnnxRuntime() } satisfies LaneData });
    this.worker.on('message', (m: LaneAnswer | { ready: true }) => {
      if (!('id' in m)) return;
      const waiting = this.pending.get(m.id);
      this.pending.delete(m.id);
      if ('error' in m) waiting?.reject(new Error(m.error));
      else waiting?.resolve(m.vectors);
    });
    // A lane whose thread dies fails its batches; the embedder lets it go and runs them itself.
    const fail = (err: Error) => {
      this.failure ??= err;
      for (const waiting of this.pending.values()) waiting.reject(err);
      this.pending.clear();
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the refinement lane exited with code ${code}`)));
  }

  get dead(): boolean {
    return this.failure !== null;
  }

  run(rows: number[][]): Promise<Float32Array[]> {
    if (this.failure) return Promise.reject(this.failure);
    const id = this.next++;
    const answer = Promise.withResolvers<Float32Array[]>();
    this.pending.set(id, answer);
    this.worker.postMessage({ id, rows } satisfies LaneRequest);
    return answer.promise;
  }

  close(): void {
    void this.worker.terminate();
  }
}

/**
 * ONNX Runtime's CPU build, loaded straight from onnxruntime-node's native add-on without that
 * package's JavaScript wrapper: the wrapper finds the add-on by a path relative to itself, which a
 * compiled executable does not have. In a checkout the add-on is read from node_modules; the
 * compiled binary registers its embedded copies (scripts/build.ts), which are written to the cache
 * directory on first use, since a native library can be loaded only from a real file.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi';
import { mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { isMainThread } from 'node:worker_threads';
import { Tensor } from 'onnxruntime-common';

/** The add-on's file name in every platform folder of onnxruntime-node. */
export const ONNX_BINDING_FILE = 'onnxruntime_binding.node';

/** A platform's runtime files (the add-on and the libraries beside it), by file name. */
export interface OnnxRuntimeFiles {
  /** onnxruntime-node's version: names the cache folder, so a new release is written anew. */
  readonly version: string;
  /** File name → path: inside the executable when compiled, or on disk. */
  readonly files: Readonly<Record<string, string>>;
}

export interface OnnxSessionOptions {
  /** Threads one inference may use; 1 keeps it on the calling thread's core. */
  readonly threads: number;
}

/** A loaded model. `run` is synchronous: it holds the calling thread until the result is ready. */
export interface OnnxSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  run(feeds: Record<string, Tensor>): Record<string, { readonly data: unknown; readonly dims: readonly number[] }>;
  /** Frees the model's native memory; run() fails afterwards. */
  release(): void;
}

interface NativeSession {
  loadModel(buffer: ArrayBufferLike, offset: number, length: number, options: object): void;
  readonly inputMetadata: readonly { name: string }[];
  readonly outputMetadata: readonly { name: string }[];
  run(feeds: Record<string, Tensor>, fetches: Record<string, null>, options: object): Record<string, { data: unknown; dims: readonly number[] }>;
  dispose(): void;
}

interface NativeBinding {
  InferenceSession: new () => NativeSession;
  initOrtOnce(logLevel: number, tensor: typeof Tensor, isMainThread: boolean): void;
}

let embedded: OnnxRuntimeFiles | null = null;
let binding: NativeBinding | null = null;

/** Called by the compiled binary's entry with its embedded runtime files; no file is written yet. */
export function useEmbeddedOnnxRuntime(files: OnnxRuntimeFiles | null): void {
  embedded = files;
}

/** The embedded runtime in use, if any: a worker thread is handed it to call `useEmbeddedOnnxRuntime` itself. */
export const embeddedOnnxRuntime = (): OnnxRuntimeFiles | null => embedded;

/** The folder of this platform's add-on inside onnxruntime-node (a checkout's node_modules). */
export function packagedOnnxRuntimeDir(): string {
  const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
}

/**
 * Writes the runtime files to `~/.cache/engram/onnxruntime-<version>-<os>-<arch>/` unless they are
 * there already with the same sizes, each through a temporary file and a rename, so that two
 * processes starting at once never load a half-written library. Returns the folder.
 */
export async function materializeOnnxRuntime(runtime: OnnxRuntimeFiles, cacheRoot = join(homedir(), '.cache', 'engram')): Promise<string> {
  const dir = join(cacheRoot, `onnxruntime-${runtime.version}-${process.platform}-${process.arch}`);
  // The add-on last: a folder that has it has the libraries it needs.
  const names = Object.keys(runtime.files).sort((a, b) => Number(a === ONNX_BINDING_FILE) - Number(b === ONNX_BINDING_FILE));
  for (const name of names) {
    const source = Bun.file(runtime.files[name]!);
    const target = join(dir, name);
    const existing = Bun.file(target);
    if ((await existing.exists()) && existing.size === source.size) continue;
    mkdirSync(dir, { recursive: true });
    const partial = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await Bun.write(partial, source);
    renameSync(partial, target);
  }
  return dir;
}

/** The native add-on, loaded once per thread: the embedded copy if one is registered, else node_modules'. */
async function loadBinding(): Promise<NativeBinding> {
  if (binding) return binding;
  const dir = embedded ? await materializeOnnxRuntime(embedded) : packagedOnnxRuntimeDir();
  disableOnnxTelemetry();
  const loaded = createRequire(import.meta.url)(join(dir, ONNX_BINDING_FILE)) as NativeBinding;
  // Log level 3 = errors only; the Tensor class is what the add-on builds its outputs with.
  loaded.initOrtOnce(3, Tensor, isMainThread);
  binding = loaded;
  return loaded;
}

/**
 * ONNX Runtime's Linux and macOS builds keep a device id and a queue of usage events under
 * ~/.cache/Microsoft and try to upload them; a local-first memory sends nothing anywhere. The
 * library reads ORT_DISABLE_TELEMETRY from the C environment when it starts, which assigning
 * process.env does not reach in Bun, so libc's setenv is called before the add-on is loaded.
 */
function disableOnnxTelemetry(): void {
  if (process.platform !== 'linux' && process.platform !== 'darwin') return;
  const libc = dlopen(process.platform === 'linux' ? 'libc.so.6' : 'libSystem.B.dylib', {
    setenv: { args: [FFIType.cstring, FFIType.cstring, FFIType.i32], returns: FFIType.i32 },
  });
  // Held in variables so that neither buffer can be collected before the call.
  const name = Buffer.from('ORT_DISABLE_TELEMETRY\0');
  const value = Buffer.from('1\0');
  const failed = libc.symbols.setenv(ptr(name), ptr(value), 1);
  libc.close();
  if (failed !== 0) throw new Error('could not set ORT_DISABLE_TELEMETRY');
}

let trimHeap: (() => void) | null = null;

/**
 * glibc's malloc_trim, or nothing elsewhere. ONNX Runtime frees the parsed model and its folding's
 * intermediates once a session is made, and each run's activations after the run, but glibc keeps
 * such freed memory mapped (its mmap threshold rises after the first large free): measured,
 * ~58 MiB after load and ~60 MiB more after a few runs stayed in RSS until trimmed. A trim costs
 * ~0.05 ms of CPU when there is little to give back.
 */
function heapTrimmer(): () => void {
  if (trimHeap) return trimHeap;
  trimHeap = () => {};
  if (process.platform === 'linux') {
    try {
      const libc = dlopen('libc.so.6', { malloc_trim: { args: [FFIType.u64], returns: FFIType.i32 } });
      trimHeap = () => void libc.symbols.malloc_trim(0);
    } catch {
      // Not glibc (musl has no malloc_trim): nothing to trim with.
    }
  }
  return trimHeap;
}

/**
 * Opens a model held in memory on the CPU, with graph optimisations on and `threads` intra-op threads.
 * ONNX Runtime's memory arena is off: it keeps its peak (a batch of long texts) for the session's
 * life, ~35–100 MiB, for no measurable speed; docs/embedding-model.md has the table.
 */
export async function openOnnxSession(model: Uint8Array, options: OnnxSessionOptions): Promise<OnnxSession> {
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error('threads must be a positive integer');
  const native = new (await loadBinding()).InferenceSession();
  native.loadModel(model.buffer, model.byteOffset, model.byteLength, {
    intraOpNumThreads: options.threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
    enableCpuMemArena: false,
    executionProviders: [{ name: 'cpu' }],
  });
  const trim = heapTrimmer();
  trim();
  const outputNames = native.outputMetadata.map((m) => m.name);
  const fetches = Object.fromEntries(outputNames.map((name) => [name, null]));
  return {
    inputNames: native.inputMetadata.map((m) => m.name),
    outputNames,
    run: (feeds) => {
      const result = native.run(feeds, fetches, {});
      trim();
      return result;
    },
    release: () => {
      native.dispose();
      trim();
    },
  };
}

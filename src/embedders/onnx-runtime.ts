/**
 * ONNX Runtime's CPU build, called through its C API with bun:ffi: sessions, tensors and runs. Which
 * library file is loaded, and how the compiled binary's copy gets onto the disk, is onnx-library.ts.
 *
 * Why the C API: a session made through it is a pointer that any thread of the process may run
 * (ONNX Runtime's Run is thread-safe), so the query thread and the learning thread share one copy of
 * the model's weights. The add-on's session is a JavaScript object bound to the thread that made
 * it, so each thread held its own (~100 MiB each; docs/embedding-model.md).
 */
import { CFunction, CString, dlopen, FFIType, type Pointer, ptr, read, toArrayBuffer } from 'bun:ffi';
import { readyOnnxLibrary } from './onnx-library';

export interface OnnxSessionOptions {
  /** Threads one inference may use; 1 keeps it on the calling thread's core. */
  readonly threads: number;
  /** ONNX Runtime's CPU memory arena (default off: see openOnnxSession). */
  readonly arena?: boolean;
  /** Memory patterns: buffers planned from the previous run of the same shape (default on). */
  readonly memoryPattern?: boolean;
  /** Graph optimisations (default all). */
  readonly optimization?: keyof typeof OPTIMIZATION_LEVEL;
  /** Session configuration entries, such as `session.disable_prepacking`: '1'. */
  readonly config?: Readonly<Record<string, string>>;
}

/** An input: int64 values (token ids, masks) and their shape. */
export interface OnnxInput {
  readonly data: BigInt64Array;
  readonly dims: readonly number[];
}

/** An output: float32 values and their shape. */
export interface OnnxOutput {
  readonly data: Float32Array;
  readonly dims: readonly number[];
}

/**
 * A session as another thread of this process can take it up (`attachOnnxSession`): plain data, so
 * it passes through `postMessage`. Valid until its owner releases it.
 */
export interface SharedOnnxSession {
  readonly address: number;
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
}

/** A loaded model. `run` is synchronous: it holds the calling thread until the result is ready. */
export interface OnnxSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  /** What another thread needs to run this same session. */
  readonly shared: SharedOnnxSession;
  run(feeds: Record<string, OnnxInput>): Record<string, OnnxOutput>;
  /**
   * The owner frees the model's native memory (run() fails afterwards); a session taken up from
   * another thread lets go of nothing.
   */
  release(): void;
}

// The C API: a table of function pointers, in the order of OrtApi in onnxruntime_c_api.h (the table
// only ever grows, so an index stays valid in every later release). Version 13 has all of these.
const API_VERSION = 13;
const { ptr: P, u32, i32, u64 } = FFIType;
const API = {
  GetErrorMessage: [2, [P], FFIType.cstring],
  CreateEnv: [3, [i32, P, P]],
  CreateSessionFromArray: [8, [P, P, u64, P, P]],
  Run: [9, [P, P, P, P, u64, P, u64, P]],
  CreateSessionOptions: [10, [P]],
  EnableMemPattern: [16, [P]],
  DisableMemPattern: [17, [P]],
  EnableCpuMemArena: [18, [P]],
  DisableCpuMemArena: [19, [P]],
  SetSessionGraphOptimizationLevel: [23, [P, i32]],
  SetIntraOpNumThreads: [24, [P, i32]],
  SetInterOpNumThreads: [25, [P, i32]],
  SessionGetInputCount: [30, [P, P]],
  SessionGetOutputCount: [31, [P, P]],
  SessionGetInputName: [36, [P, u64, P, P]],
  SessionGetOutputName: [37, [P, u64, P, P]],
  CreateTensorAsOrtValue: [48, [P, P, u64, i32, P]],
  GetTensorMutableData: [51, [P, P]],
  GetTensorElementType: [60, [P, P]],
  GetDimensionsCount: [61, [P, P]],
  GetDimensions: [62, [P, P, u64]],
  GetTensorTypeAndShape: [65, [P, P]],
  AllocatorFree: [76, [P, P]],
  GetAllocatorWithDefaultOptions: [78, [P]],
  ReleaseStatus: [93, [P], FFIType.void],
  ReleaseSession: [95, [P], FFIType.void],
  ReleaseValue: [96, [P], FFIType.void],
  ReleaseTensorTypeAndShapeInfo: [99, [P], FFIType.void],
  ReleaseSessionOptions: [100, [P], FFIType.void],
  AddSessionConfigEntry: [130, [P, P, P]],
} as const satisfies Record<string, readonly [number, readonly FFIType[], FFIType?]>;

type Api = { [name in keyof typeof API]: (...args: unknown[]) => unknown };

const LOG_ERRORS_ONLY = 3;
const OPTIMIZATION_LEVEL = { disabled: 0, basic: 1, extended: 2, all: 99 } as const;
const ELEMENT_FLOAT = 1;
const ELEMENT_INT64 = 7;

/** A NUL-terminated copy of a string, for a `const char*`. */
const cstr = (s: string): Buffer => Buffer.from(`${s}\0`);

/** What this thread has of the library: the API table and the objects made once per thread. */
interface Runtime {
  api: Api;
  env: Pointer;
  allocator: Pointer;
}

let runtime: Runtime | null = null;

/** The library (onnx-library.ts says which file), loaded and bound once per thread. */
async function loadRuntime(): Promise<Runtime> {
  if (runtime) return runtime;
  const lib = dlopen(await readyOnnxLibrary(), { OrtGetApiBase: { args: [], returns: P } });
  const base = lib.symbols.OrtGetApiBase()!;
  // OrtApiBase is { GetApi(version), GetVersionString() }.
  const getApi = CFunction({ ptr: read.ptr(base, 0) as Pointer, args: [u32], returns: P });
  const table = getApi(API_VERSION) as Pointer | null;
  if (!table) throw new Error(`this ONNX Runtime does not offer C API version ${API_VERSION}`);
  // Eight bytes a function pointer: every platform onnxruntime-node ships is 64-bit.
  const api = Object.fromEntries(
    Object.entries(API).map(([name, [index, args, returns]]) => {
      const fn = CFunction({ ptr: read.ptr(table, index * 8) as Pointer, args: [...args], returns: returns ?? P });
      return [name, fn];
    }),
  ) as unknown as Api;
  // The environment is the process's one (ONNX Runtime counts its references) and is never
  // released: a session made under it may outlive this thread.
  const env = out((o) => api.CreateEnv(LOG_ERRORS_ONLY, cstr('engram'), o), api);
  const allocator = out((o) => api.GetAllocatorWithDefaultOptions(o), api);
  runtime = { api, env, allocator };
  return runtime;
}

/** Throws the status's message if a call failed (a non-null OrtStatus*), after freeing it. */
function check(status: unknown, api: Api): void {
  if (!status) return;
  const message = String(api.GetErrorMessage(status));
  api.ReleaseStatus(status);
  throw new Error(`ONNX Runtime: ${message}`);
}

/** Calls a function whose last argument receives a pointer, and returns that pointer. */
function out(call: (slot: BigUint64Array) => unknown, api: Api): Pointer {
  const slot = new BigUint64Array(1);
  check(call(slot), api);
  return Number(slot[0]) as Pointer;
}

/** Calls a function whose last argument receives a size_t. */
function count(call: (slot: BigUint64Array) => unknown, api: Api): number {
  return out(call, api) as unknown as number;
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
 * Opens a model held in memory on the CPU, with `threads` intra-op threads and, unless the options
 * say otherwise, every graph optimisation on and ONNX Runtime's memory arena off: the arena keeps
 * its peak (a batch of long texts) for the session's life, ~35–100 MiB, for no measurable speed;
 * docs/embedding-model.md has the table. The calling thread owns the session: it releases it, once
 * no other thread runs it.
 */
export async function openOnnxSession(model: Uint8Array, options: OnnxSessionOptions): Promise<OnnxSession> {
  if (!Number.isInteger(options.threads) || options.threads < 1) throw new Error('threads must be a positive integer');
  const rt = await loadRuntime();
  const { api } = rt;
  const settings = out((o) => api.CreateSessionOptions(o), api);
  let session: Pointer;
  try {
    check(api.SetIntraOpNumThreads(settings, options.threads), api);
    check(api.SetInterOpNumThreads(settings, 1), api);
    check(api.SetSessionGraphOptimizationLevel(settings, OPTIMIZATION_LEVEL[options.optimization ?? 'all']), api);
    check(options.arena ? api.EnableCpuMemArena(settings) : api.DisableCpuMemArena(settings), api);
    check(options.memoryPattern === false ? api.DisableMemPattern(settings) : api.EnableMemPattern(settings), api);
    for (const [key, value] of Object.entries(options.config ?? {}))
      check(api.AddSessionConfigEntry(settings, cstr(key), cstr(value)), api);
    session = out((o) => api.CreateSessionFromArray(rt.env, model, model.byteLength, settings, o), api);
  } finally {
    api.ReleaseSessionOptions(settings);
  }
  const names = (
    countOf: 'SessionGetInputCount' | 'SessionGetOutputCount',
    nameOf: 'SessionGetInputName' | 'SessionGetOutputName',
  ) =>
    Array.from({ length: count((o) => api[countOf](session, o), api) }, (_, i) => {
      const name = out((o) => api[nameOf](session, i, rt.allocator, o), api);
      try {
        return new CString(name).toString();
      } finally {
        check(api.AllocatorFree(rt.allocator, name), api);
      }
    });
  const shared = {
    address: session as number,
    inputNames: names('SessionGetInputCount', 'SessionGetInputName'),
    outputNames: names('SessionGetOutputCount', 'SessionGetOutputName'),
  };
  heapTrimmer()();
  return sessionOf(rt, shared, true);
}

/** Takes up, on this thread, a session another thread of this process opened (see `SharedOnnxSession`). */
export async function attachOnnxSession(shared: SharedOnnxSession): Promise<OnnxSession> {
  return sessionOf(await loadRuntime(), shared, false);
}

function sessionOf(rt: Runtime, shared: SharedOnnxSession, owned: boolean): OnnxSession {
  const { api } = rt;
  const session = shared.address as Pointer;
  const trim = heapTrimmer();
  // Every name as a C string, in one buffer this session holds for its life: a pointer into a
  // buffer made for one call could outlive the buffer, which the collector may take once the
  // call's code no longer reads it (seen: "Invalid input name" with garbage under load).
  const allNames = [...shared.inputNames, ...shared.outputNames];
  const nameBlock = new TextEncoder().encode(allNames.map((n) => `${n}\0`).join(''));
  const nameAt = new Map<string, bigint>();
  allNames.reduce((offset, n) => {
    nameAt.set(n, BigInt(ptr(nameBlock, offset)));
    return offset + Buffer.byteLength(n) + 1;
  }, 0);
  let released = false;
  return {
    inputNames: shared.inputNames,
    outputNames: shared.outputNames,
    shared,
    run(feeds) {
      if (released) throw new Error('the ONNX session was released');
      const inputNames = Object.keys(feeds);
      const names = BigUint64Array.from([...inputNames, ...shared.outputNames], (n) => {
        const at = nameAt.get(n);
        if (at === undefined) throw new Error(`the model has no input ${n}`);
        return at;
      });
      const inputs = new BigUint64Array(inputNames.length);
      const outputs = new BigUint64Array(shared.outputNames.length);
      try {
        inputNames.forEach((n, i) => {
          const { data, dims } = feeds[n]!;
          if (data.length !== dims.reduce((a, b) => a * b, 1))
            throw new Error(`input ${n} has ${data.length} values for shape [${dims.join(', ')}]`);
          // Copied into memory ONNX Runtime allocates, for the same reason as the names.
          const value = out(
            (o) =>
              api.CreateTensorAsOrtValue(rt.allocator, BigInt64Array.from(dims, BigInt), dims.length, ELEMENT_INT64, o),
            api,
          );
          inputs[i] = BigInt(value);
          if (data.length)
            new BigInt64Array(
              toArrayBuffer(
                out((o) => api.GetTensorMutableData(value, o), api),
                0,
                data.byteLength,
              ),
            ).set(data);
        });
        check(
          api.Run(
            session,
            null,
            names,
            inputs,
            inputNames.length,
            names.subarray(inputNames.length),
            outputs.length,
            outputs,
          ),
          api,
        );
        return Object.fromEntries(
          shared.outputNames.map((name, i) => [name, readOutput(rt, Number(outputs[i]) as Pointer, name)]),
        );
      } finally {
        for (const value of [...inputs, ...outputs]) if (value) api.ReleaseValue(Number(value));
        trim();
      }
    },
    release() {
      if (released) return;
      released = true;
      if (!owned) return;
      api.ReleaseSession(session);
      trim();
    },
  };
}

/** Copies a float tensor out of ONNX Runtime's memory, with its shape. */
function readOutput(rt: Runtime, value: Pointer, name: string): OnnxOutput {
  const { api } = rt;
  const info = out((o) => api.GetTensorTypeAndShape(value, o), api);
  let dims: number[];
  try {
    const type = count((o) => api.GetTensorElementType(info, o), api);
    if (type !== ELEMENT_FLOAT) throw new Error(`output ${name} is not float32 (element type ${type})`);
    const shape = new BigInt64Array(count((o) => api.GetDimensionsCount(info, o), api));
    check(api.GetDimensions(info, shape, shape.length), api);
    dims = Array.from(shape, Number);
  } finally {
    api.ReleaseTensorTypeAndShapeInfo(info);
  }
  const length = dims.reduce((a, b) => a * b, 1);
  const data = out((o) => api.GetTensorMutableData(value, o), api);
  // A copy: the tensor's memory goes back to ONNX Runtime when the value is released.
  return { data: length ? new Float32Array(toArrayBuffer(data, 0, length * 4).slice(0)) : new Float32Array(0), dims };
}

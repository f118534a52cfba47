/**
 * Where this process finds ONNX Runtime's library: onnxruntime-node's platform folder in a checkout
 * (its add-on and JavaScript wrapper are not used), or, in the compiled binary, the copies it embeds
 * (scripts/build.ts), written to the cache directory on first use, since a native library can be
 * loaded only from a real file. Binding the library's C API is onnx-runtime.ts.
 */
import { dlopen, FFIType, ptr } from 'bun:ffi';
import { mkdirSync, renameSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

/** A platform's runtime files (the library and what it loads beside it), by file name. */
export interface OnnxRuntimeFiles {
  /** onnxruntime-node's version: names the cache folder, so a new release is written anew. */
  readonly version: string;
  /** File name → path: inside the executable when compiled, or on disk. */
  readonly files: Readonly<Record<string, string>>;
}

/** The shared library's name in onnxruntime-node's folder for each platform. */
const LIBRARY_FILE: Readonly<Record<string, string>> = {
  linux: 'libonnxruntime.so.1',
  darwin: 'libonnxruntime.1.dylib',
  win32: 'onnxruntime.dll',
};

/** The runtime files a platform needs: every file of its folder but onnxruntime-node's add-on. */
export const isRuntimeFile = (name: string): boolean => !name.endsWith('.node');

let embedded: OnnxRuntimeFiles | null = null;

/** Called by the compiled binary's entry with its embedded runtime files; no file is written yet. */
export function useEmbeddedOnnxRuntime(files: OnnxRuntimeFiles | null): void {
  embedded = files;
}

/** The embedded runtime in use, if any: a worker thread is handed it to call `useEmbeddedOnnxRuntime` itself. */
export const embeddedOnnxRuntime = (): OnnxRuntimeFiles | null => embedded;

/** The folder of this platform's runtime inside onnxruntime-node (a checkout's node_modules). */
export function packagedOnnxRuntimeDir(): string {
  const pkg = createRequire(import.meta.url).resolve('onnxruntime-node/package.json');
  return join(dirname(pkg), 'bin', 'napi-v6', process.platform, process.arch);
}

/**
 * Writes the runtime files to `~/.cache/engram/onnxruntime-<version>-<os>-<arch>/` unless they are
 * there already with the same sizes, each through a temporary file and a rename, so that two
 * processes starting at once never load a half-written library. Returns the folder.
 */
export async function materializeOnnxRuntime(
  runtime: OnnxRuntimeFiles,
  cacheRoot = join(homedir(), '.cache', 'engram'),
): Promise<string> {
  const dir = join(cacheRoot, `onnxruntime-${runtime.version}-${process.platform}-${process.arch}`);
  // The main library last: a folder that has it has the libraries it needs.
  const main = LIBRARY_FILE[process.platform];
  const names = Object.keys(runtime.files).sort((a, b) => Number(a === main) - Number(b === main));
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

/**
 * The path of this platform's library, ready to load: the embedded copy written out when one is
 * registered, else node_modules' own; and the environment the library reads as it starts, set.
 */
export async function readyOnnxLibrary(): Promise<string> {
  const dir = embedded ? await materializeOnnxRuntime(embedded) : packagedOnnxRuntimeDir();
  const file = LIBRARY_FILE[process.platform];
  if (!file) throw new Error(`ONNX Runtime is not packaged for ${process.platform}`);
  disableOnnxTelemetry();
  return join(dir, file);
}

/**
 * ONNX Runtime's Linux and macOS builds keep a device id and a queue of usage events under
 * ~/.cache/Microsoft and try to upload them; a local-first memory sends nothing anywhere. The
 * library reads ORT_DISABLE_TELEMETRY from the C environment when it starts, which assigning
 * process.env does not reach in Bun, so libc's setenv is called before the library is loaded.
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

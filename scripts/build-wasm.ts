/**
 * Compiles src/search/hamming.wat into src/search/hamming-wasm.ts (the module's bytes in base64, so
 * that the server, its worker and the compiled binary load it without a file). Run after editing
 * the .wat: `bun scripts/build-wasm.ts`; test/search/hamming-scan.test.ts fails while they differ.
 */
import { join } from 'node:path';
import wabtInit from 'wabt';

const dir = join(import.meta.dir, '..', 'src', 'search');

/** The .wat compiled to the bytes of a WebAssembly module. */
export async function compileHammingWat(): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const module = wabt.parseWat('hamming.wat', await Bun.file(join(dir, 'hamming.wat')).text(), {
    simd: true,
    threads: true,
  });
  try {
    return new Uint8Array(module.toBinary({}).buffer);
  } finally {
    module.destroy();
  }
}

export const wasmModuleSource = (
  bytes: Uint8Array,
): string => `// Made by scripts/build-wasm.ts from hamming.wat: do not edit.
export const HAMMING_WASM = '${Buffer.from(bytes).toString('base64')}';
`;

if (import.meta.main) {
  await Bun.write(join(dir, 'hamming-wasm.ts'), wasmModuleSource(await compileHammingWat()));
}

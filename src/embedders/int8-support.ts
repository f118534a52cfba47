/**
 * Whether the strong model's products may run in int8 on this CPU (onnx-int8-matmul.ts). ONNX
 * Runtime multiplies its uint8 activations by the int8 weights; on x86-64 without VNNI it adds the
 * products in pairs in 16 bits first (VPMADDUBSW), which can saturate with weights that use the
 * whole int8 range, as this model's do (ONNX Runtime's quantization guide). VNNI, AVX-VNNI and AMX
 * add into 32 bits, and ARM's int8 kernels never pair in 16 bits. Where the flags cannot be read
 * (x86-64 outside Linux), the products stay float: slower, never wrong.
 */
import { readFileSync } from 'node:fs';

/** The x86 flags (as /proc/cpuinfo names them) of instructions that multiply int8 into 32 bits. */
const EXACT_FLAGS = ['avx512_vnni', 'avx_vnni', 'amx_int8'];

export function int8ProductsExact(arch: string = process.arch, cpuinfo: string | null = readCpuinfo()): boolean {
  if (arch === 'arm64') return true;
  if (arch !== 'x64' || cpuinfo === null) return false;
  const flags = new Set(/^flags\s*:(.*)$/m.exec(cpuinfo)?.[1]?.trim().split(/\s+/) ?? []);
  return EXACT_FLAGS.some((flag) => flags.has(flag));
}

function readCpuinfo(): string | null {
  try {
    return readFileSync('/proc/cpuinfo', 'utf8');
  } catch {
    return null;
  }
}

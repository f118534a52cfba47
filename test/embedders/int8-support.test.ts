import { describe, expect, it } from 'bun:test';
import { int8ProductsExact } from '../../src/embedders/int8-support';

const cpuinfo = (flags: string) =>
  `processor\t: 0\nvendor_id\t: GenuineIntel\nflags\t\t: fpu sse2 ${flags}\n\nprocessor\t: 1\n`;

describe('where the strong model multiplies in int8', () => {
  it('on x86-64 only with VNNI, AVX-VNNI or AMX, which add int8 products in 32 bits', () => {
    expect(int8ProductsExact('x64', cpuinfo('avx2 avx512f avx512_vnni'))).toBe(true);
    expect(int8ProductsExact('x64', cpuinfo('avx2 avx_vnni'))).toBe(true);
    expect(int8ProductsExact('x64', cpuinfo('avx2 amx_tile amx_int8'))).toBe(true);
    // AVX2 alone (AMD before Zen 4, Intel before Ice Lake) pairs them in 16 bits, which saturates.
    expect(int8ProductsExact('x64', cpuinfo('avx2 fma avx512f avx512bw'))).toBe(false);
    expect(int8ProductsExact('x64', cpuinfo('avx2 avx512_vnni_x'))).toBe(false);
  });

  it('on ARM; never where the flags cannot be read, nor on other machines', () => {
    expect(int8ProductsExact('arm64', null)).toBe(true);
    expect(int8ProductsExact('x64', null)).toBe(false);
    expect(int8ProductsExact('ia32', cpuinfo('avx512_vnni'))).toBe(false);
  });
});

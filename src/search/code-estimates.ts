/**
 * A finer order for a Hamming scan's candidates before their int8 rows are read (vector-index.ts):
 * the query's transformed floats against each candidate's sign bits, Σ q_i·s_i, an asymmetric
 * estimate of their inner product that weighs each bit by how much the query says there, where the
 * Hamming distance counts every disagreement alike. It is taken from the codes in memory with a
 * table per code byte (the 256 sums of the query's eight floats at that byte's bits): one lookup a
 * byte, 32–48 a code (with the larger pick, 0.5–0.9 ms more a search at 100,000 passages). A row
 * is a read of the rows file of its own (2 µs at 100,000 passages, 8–35 µs at a million), so a
 * search shortlists SHORTLISTED units a passage asked for by the scan, orders them so, and reads the
 * rows of the best RESCORED only: at 100,000 passages, 300 rows read of 2,000 shortlisted found
 * more of the exact top 10 / 30 than 500 read in Hamming order (fast tier 0.878 / 0.784 → 0.948 /
 * 0.861, strong 0.609 / 0.470 → 0.675 / 0.510; a million, fast, 250 rows: 0.799 / 0.684 → 0.889 /
 * 0.765; bench/vector-recall.ts --reranks; docs/performance.md, Issue 40).
 */
import type { HammingScan } from './hamming-scan';

/** A search takes at least this many passages' worth of candidates (k is often small). */
export const PASSAGES_LEAST = 20;
/** Candidate units a passage asked for: shortlisted by the Hamming scan, and rescored of those. */
export const SHORTLISTED = 40;
export const RESCORED = 6;

export class CodeEstimates {
  /** 256 sums for each byte of a code. */
  private readonly table: Float32Array;
  private readonly bytes: number;

  constructor(private readonly scanner: HammingScan) {
    this.bytes = scanner.words * 4;
    this.table = new Float32Array(this.bytes * 256);
  }

  /**
   * The `keep` of the `shortlist`ed slots whose codes (at `positionOf(slot)` in the scanner) are
   * nearest the query just encoded (its transformed floats still `staged`), in no particular order;
   * the shortlist itself when it holds no more.
   */
  best(shortlist: Int32Array | number[], positionOf: (slot: number) => number, keep: number): Int32Array | number[] {
    if (shortlist.length <= keep) return shortlist;
    const { codes } = this.scanner;
    this.prepare(this.scanner.staged);
    const positions = Array.from(shortlist, positionOf);
    return this.bestOf(shortlist, positions, new Uint8Array(codes.buffer, codes.byteOffset, codes.byteLength), keep);
  }

  /**
   * Takes the query's transformed floats: a code's estimate is then the sum of the floats at its
   * set bits, which orders codes as Σ q_i·s_i does (that is twice it, less the floats' sum).
   */
  prepare(query: Float32Array): void {
    const { table } = this;
    // Bits past the floats (a code padded to whole 128-bit steps) are never set.
    const bits = Math.min(this.bytes * 8, query.length);
    for (let b = 0; b < this.bytes; b++) {
      const base = b * 256;
      table[base] = 0;
      for (let v = 1; v < 256; v++) {
        const i = b * 8 + 31 - Math.clz32(v & -v);
        table[base + v] = table[base + (v & (v - 1))]! + (i < bits ? query[i]! : 0);
      }
    }
  }

  /** Of `slots`, whose codes are at `positions` in `codes`, the `keep` with the highest estimates. */
  bestOf(slots: ArrayLike<number>, positions: ArrayLike<number>, codes: Uint8Array, keep: number): number[] {
    const n = slots.length;
    if (n <= keep) return Array.from(slots);
    const { table, bytes } = this;
    const estimates = new Float32Array(n);
    for (let c = 0; c < n; c++) {
      const at = positions[c]! * bytes;
      let sum = 0;
      for (let b = 0; b < bytes; b++) sum += table[(b << 8) | codes[at + b]!]!;
      estimates[c] = sum;
    }
    const threshold = estimates.slice().sort()[n - keep]!;
    const kept: number[] = [];
    // Those above the threshold first, then of those at it as many as fill `keep`.
    for (let c = 0; c < n; c++) if (estimates[c]! > threshold) kept.push(slots[c]!);
    for (let c = 0; c < n && kept.length < keep; c++) if (estimates[c] === threshold) kept.push(slots[c]!);
    return kept;
  }
}

/**
 * The codes and container groups of a vector index, held in a WebAssembly memory so that SIMD code
 * (hamming.wat) makes each code from a vector, computes every slot's Hamming distance to a query in
 * one call, and picks the nearest slots: several times faster than the same loops in JavaScript.
 * Views onto the memory are remade when it grows: read them from here, never keep them. The memory
 * is shared, so that another thread may take part in scans (shared-scan.ts).
 */
import { HAMMING_WASM } from './hamming-wasm';
import { type ScanShare, SharedScanJobs } from './shared-scan';

const module = new WebAssembly.Module(Buffer.from(HAMMING_WASM, 'base64'));
const PAGE = 65_536;
const align = (n: number) => Math.ceil(n / 16) * 16;
/** The most lists an inverted file may have (inverted-lists.ts): their centres have room here. */
export const MAX_LISTS = 4096;
/** Codes `assignSlots` and `assignCodes` hand the module at a time. */
const ASSIGN_CHUNK = 4096;
/**
 * Candidates `select` has room for from the start: a search's shortlist at the most passages a
 * search asks for (100 × 40 units, code-estimates.ts). Making room later lays the memory out anew,
 * copying every code: a first search at a million passages took 0.8 s more.
 */
const CANDIDATES_AT_START = 4096;

type Region =
  | 'staged'
  | 'query'
  | 'histogram'
  | 'helperHistogram'
  | 'wanted'
  | 'centres'
  | 'work'
  | 'assigned'
  | 'codes'
  | 'groups'
  | 'distances'
  | 'candidates';
type Offsets = Record<Region, number>;

export class HammingScan {
  /** 32-bit words a code takes, padded to whole 128-bit steps. */
  readonly words: number;
  /** Floats `staged` holds: a power of two, at least `bits` and 32. */
  readonly padded: number;
  /** Where a vector is put, transformed but for the Hadamard step, for `encode` or `encodeQuery`. */
  staged!: Float32Array;
  codes!: Uint32Array;
  groups!: Int32Array;
  distances!: Uint16Array;
  histogram!: Uint32Array;
  /** The codes of an inverted file's list centres (inverted-lists.ts), up to MAX_LISTS. */
  centres!: Uint32Array;
  /** A helper thread's histogram, added to `histogram` at the end of a scan it took part in. */
  private helperHistogram!: Uint32Array;
  private candidates!: Int32Array;
  private work!: Uint32Array;
  private assigned!: Uint16Array;
  private query!: Uint32Array;
  private wanted!: Uint8Array;
  private readonly memory: WebAssembly.Memory;
  private readonly scanFn: (...args: number[]) => void;
  /** Its scans, as jobs a helper thread may take part in. */
  readonly jobs = new SharedScanJobs();
  private readonly selectFn: (...args: number[]) => number;
  private readonly encodeFn: (...args: number[]) => void;
  private readonly nearestFn: (...args: number[]) => void;
  private capacity = 0;
  private groupCapacity = 0;
  private candidateCapacity = 0;
  /** Where each region starts in the module's memory, in bytes. */
  private offsets!: Offsets;

  constructor(
    private readonly bits: number,
    capacity: number,
  ) {
    this.words = Math.ceil(bits / 128) * 4;
    this.padded = Math.max(32, 2 ** Math.ceil(Math.log2(bits)));
    // Shared memory needs a maximum: 4 GiB, the most a 32-bit module addresses (address space only).
    this.memory = new WebAssembly.Memory({ initial: 1, maximum: 65_536, shared: true });
    const instance = new WebAssembly.Instance(module, { env: { memory: this.memory } });
    this.scanFn = instance.exports.scan as (...args: number[]) => void;
    this.selectFn = instance.exports.select as (...args: number[]) => number;
    this.encodeFn = instance.exports.encode as (...args: number[]) => void;
    this.nearestFn = instance.exports.nearest as (...args: number[]) => void;
    this.layout(capacity, 64, CANDIDATES_AT_START);
  }

  /** Makes room for `slots` codes and `groupCount` groups, keeping what is stored. */
  reserve(slots: number, groupCount: number): void {
    if (slots <= this.capacity && groupCount <= this.groupCapacity) return;
    let capacity = this.capacity;
    while (capacity < slots) capacity *= 2;
    let groups = this.groupCapacity;
    while (groups < groupCount) groups *= 2;
    this.layout(capacity, groups, this.candidateCapacity);
  }

  /** Lends the scans a helper thread (which calls `helpWithScans` with this). */
  share(): ScanShare {
    this.jobs.helped = true;
    const { control, chunks } = this.jobs;
    return {
      module,
      memory: this.memory,
      control: control.buffer as SharedArrayBuffer,
      chunks: chunks.buffer as SharedArrayBuffer,
    };
  }

  /** Makes `staged` (Hadamard-transformed) the code of a slot. */
  encode(slot: number): void {
    this.encodeFn(this.offsets.staged, this.padded, this.bits, this.offsets.codes + slot * this.words * 4);
  }

  /** Makes `staged` (Hadamard-transformed) the code the next scan compares with. */
  encodeQuery(): void {
    this.query.fill(0);
    this.encodeFn(this.offsets.staged, this.padded, this.bits, this.offsets.query);
  }

  /** Sets the code the next scan compares with as given. */
  setQuery(code: Uint32Array): void {
    this.query.fill(0);
    this.query.set(code);
  }

  /**
   * Distances of slots 0…count−1 to the query's code (`unreachable` for a slot whose group is
   * negative or not wanted), and their histogram, in `distances` and `histogram`.
   */
  scan(count: number, wanted: Uint8Array, unreachable: number): void {
    this.scanRanges(Uint32Array.of(0, count), wanted, unreachable);
  }

  /** As `scan`, for the slots of the given ranges (start, end, start, end, …) one after the other: the i-th slot scanned gets `distances[i]`. */
  scanRanges(ranges: Uint32Array, wanted: Uint8Array, unreachable: number): void {
    this.wanted.fill(0);
    this.wanted.set(wanted);
    this.histogram.fill(0);
    const o = this.offsets;
    const args = {
      codes: o.codes,
      vecs: this.words / 4,
      query: o.query,
      groups: o.groups,
      wanted: o.wanted,
      dist: o.distances,
      hist: o.histogram,
      helperHist: o.helperHistogram,
      unreachable,
    };
    this.jobs.scan(this.scanFn, ranges, args, this.histogram, this.helperHistogram);
  }

  /** Writes to `out` the nearest of the first `k` `centres` to each code of slots `first`…`first + out.length − 1`. */
  assignSlots(first: number, k: number, out: Uint16Array): void {
    for (let i = 0; i < out.length; i += ASSIGN_CHUNK) {
      const n = Math.min(ASSIGN_CHUNK, out.length - i);
      this.nearestFn(
        this.offsets.codes + (first + i) * this.words * 4,
        n,
        this.words / 4,
        this.offsets.centres,
        k,
        this.offsets.assigned,
      );
      out.set(this.assigned.subarray(0, n), i);
    }
  }

  /** As `assignSlots`, for codes given one after the other in `codes` (`words` words each). */
  assignCodes(codes: Uint32Array, k: number, out: Uint16Array): void {
    const per = ASSIGN_CHUNK * this.words;
    for (let i = 0; i < out.length; i += ASSIGN_CHUNK) {
      const n = Math.min(ASSIGN_CHUNK, out.length - i);
      this.work.set(codes.subarray(i * this.words, i * this.words + Math.min(per, n * this.words)));
      this.nearestFn(this.offsets.work, n, this.words / 4, this.offsets.centres, k, this.offsets.assigned);
      out.set(this.assigned.subarray(0, n), i);
    }
  }

  /**
   * The slots of the last scan nearer than `cutoff`, and of those at it the first `atCutoff`, in
   * slot order (at most `most` of them, which the two must not exceed). A view, valid until the next call.
   */
  select(count: number, cutoff: number, atCutoff: number, most: number): Int32Array {
    if (most > this.candidateCapacity) this.layout(this.capacity, this.groupCapacity, most);
    const n = this.selectFn(this.offsets.distances, count, cutoff, atCutoff, this.offsets.candidates);
    return this.candidates.subarray(0, n);
  }

  private layout(capacity: number, groupCapacity: number, candidateCapacity: number): void {
    const keep = this.capacity
      ? { codes: this.codes.slice(), groups: this.groups.slice(), centres: this.centres.slice() }
      : null;
    const query = this.padded * 4;
    const histogram = query + align(this.words * 4);
    const helperHistogram = histogram + align((this.bits + 2) * 4);
    const wanted = helperHistogram + align((this.bits + 2) * 4);
    const centres = wanted + align(groupCapacity);
    const work = centres + MAX_LISTS * this.words * 4;
    const assigned = work + ASSIGN_CHUNK * this.words * 4;
    const codes = assigned + ASSIGN_CHUNK * 2;
    const groups = codes + capacity * this.words * 4;
    const distances = groups + capacity * 4;
    // `select` reads distances eight at a time: 16 bytes of room past the last slot.
    const candidates = distances + align(capacity * 2 + 16);
    const o: Offsets = {
      staged: 0,
      query,
      histogram,
      helperHistogram,
      wanted,
      centres,
      work,
      assigned,
      codes,
      groups,
      distances,
      candidates,
    };
    const bytes = o.candidates + candidateCapacity * 4;
    if (bytes > this.memory.buffer.byteLength)
      this.memory.grow(Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE));
    const buffer = this.memory.buffer;
    this.staged = new Float32Array(buffer, o.staged, this.padded);
    this.query = new Uint32Array(buffer, o.query, this.words);
    this.histogram = new Uint32Array(buffer, o.histogram, this.bits + 2);
    this.helperHistogram = new Uint32Array(buffer, o.helperHistogram, this.bits + 2);
    this.wanted = new Uint8Array(buffer, o.wanted, groupCapacity);
    this.codes = new Uint32Array(buffer, o.codes, capacity * this.words);
    this.groups = new Int32Array(buffer, o.groups, capacity);
    this.distances = new Uint16Array(buffer, o.distances, capacity);
    this.candidates = new Int32Array(buffer, o.candidates, candidateCapacity);
    this.centres = new Uint32Array(buffer, o.centres, MAX_LISTS * this.words);
    this.work = new Uint32Array(buffer, o.work, ASSIGN_CHUNK * this.words);
    this.assigned = new Uint16Array(buffer, o.assigned, ASSIGN_CHUNK);
    if (keep) {
      this.centres.set(keep.centres);
      this.codes.set(keep.codes);
      this.groups.set(keep.groups);
    }
    this.offsets = o;
    this.capacity = capacity;
    this.groupCapacity = groupCapacity;
    this.candidateCapacity = candidateCapacity;
  }
}

/**
 * The codes and container groups of a vector index, held in a WebAssembly memory so that a SIMD
 * scan (hamming.wat) computes every slot's Hamming distance to a query in one call: about four
 * times faster than the same loop in JavaScript. Views onto the memory are remade when it grows.
 */
import { HAMMING_WASM } from './hamming-wasm';

const module = new WebAssembly.Module(Buffer.from(HAMMING_WASM, 'base64'));
const PAGE = 65_536;
const align = (n: number) => Math.ceil(n / 16) * 16;

export class HammingScan {
  /** 32-bit words a code takes, padded to whole 128-bit steps. */
  readonly words: number;
  codes!: Uint32Array;
  groups!: Int32Array;
  distances!: Uint16Array;
  histogram!: Uint32Array;
  private query!: Uint32Array;
  private wanted!: Uint8Array;
  private readonly memory: WebAssembly.Memory;
  private readonly scanFn: (...args: number[]) => void;
  private capacity = 0;
  private groupCapacity = 0;
  private offsets = { query: 0, histogram: 0, wanted: 0, codes: 0, groups: 0, distances: 0 };

  constructor(private readonly bits: number, capacity: number) {
    this.words = Math.ceil(bits / 128) * 4;
    const instance = new WebAssembly.Instance(module);
    this.memory = instance.exports.memory as WebAssembly.Memory;
    this.scanFn = instance.exports.scan as (...args: number[]) => void;
    this.layout(capacity, 64);
  }

  /** Makes room for `slots` codes and `groupCount` groups, keeping what is stored. */
  reserve(slots: number, groupCount: number): void {
    if (slots <= this.capacity && groupCount <= this.groupCapacity) return;
    let capacity = this.capacity;
    while (capacity < slots) capacity *= 2;
    let groups = this.groupCapacity;
    while (groups < groupCount) groups *= 2;
    this.layout(capacity, groups);
  }

  /**
   * Distances of slots 0…count−1 to the query's code (`unreachable` for a slot whose group is
   * negative or not wanted), and their histogram, in `distances` and `histogram`.
   */
  scan(query: Uint32Array, count: number, wanted: Uint8Array, unreachable: number): void {
    this.query.fill(0);
    this.query.set(query);
    this.wanted.fill(0);
    this.wanted.set(wanted);
    this.histogram.fill(0);
    const o = this.offsets;
    this.scanFn(o.codes, count, this.words / 4, o.query, o.groups, o.wanted, o.distances, o.histogram, unreachable);
  }

  private layout(capacity: number, groupCapacity: number): void {
    const keep = this.capacity ? { codes: this.codes.slice(), groups: this.groups.slice() } : null;
    const o = { query: 0, histogram: 0, wanted: 0, codes: 0, groups: 0, distances: 0 };
    o.histogram = align(this.words * 4);
    o.wanted = o.histogram + align((this.bits + 2) * 4);
    o.codes = o.wanted + align(groupCapacity);
    o.groups = o.codes + capacity * this.words * 4;
    o.distances = o.groups + capacity * 4;
    const bytes = o.distances + align(capacity * 2);
    if (bytes > this.memory.buffer.byteLength) this.memory.grow(Math.ceil((bytes - this.memory.buffer.byteLength) / PAGE));
    const buffer = this.memory.buffer;
    this.query = new Uint32Array(buffer, o.query, this.words);
    this.histogram = new Uint32Array(buffer, o.histogram, this.bits + 2);
    this.wanted = new Uint8Array(buffer, o.wanted, groupCapacity);
    this.codes = new Uint32Array(buffer, o.codes, capacity * this.words);
    this.groups = new Int32Array(buffer, o.groups, capacity);
    this.distances = new Uint16Array(buffer, o.distances, capacity);
    if (keep) {
      this.codes.set(keep.codes);
      this.groups.set(keep.groups);
    }
    this.offsets = o;
    this.capacity = capacity;
    this.groupCapacity = groupCapacity;
  }
}

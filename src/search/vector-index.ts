/**
 * The in-memory vector index of one embedding tier, for fast nearest neighbours. SQLite holds the
 * durable copy; this holds a compact one of every unit vector (a passage whole and its sentence
 * groups): a 1-bit code per dimension for a Hamming scan (in WebAssembly, hamming-scan.ts), and the
 * int8 vector for rescoring the best candidates. A passage scores as its best unit ("max-sim").
 */
import { HammingScan } from './hamming-scan';

const RESCORE_MIN = 200;

export interface VectorHit {
  passageId: number;
  /** Cosine similarity of the passage's best unit, from -1 to 1. */
  score: number;
}

export class VectorIndex {
  /** Codes, groups and the scan's distances. */
  private readonly scanner: HammingScan;
  /** Slots in use, live or dead; a passage's units sit in consecutive slots. */
  private size = 0;
  private dead = 0;
  private ids = new Float64Array(1024);
  private values: Int8Array;
  /** 1 / the int8 vector's length, so that a dot product with a unit query is a cosine. */
  private inverseNorms = new Float32Array(1024);
  /** A passage's first slot and unit count, as first * 256 + count. */
  private readonly slotsOf = new Map<number, number>();
  private readonly groupOf = new Map<string, number>();

  constructor(readonly dimensions: number) {
    this.scanner = new HammingScan(dimensions, 1024);
    this.values = new Int8Array(1024 * dimensions);
  }

  /** How many passages the index holds. */
  get count(): number {
    return this.slotsOf.size;
  }

  /** Adds or replaces a passage's unit vectors (at most 255), filed under its container. */
  add(passageId: number, containerId: string, vectors: Int8Array[]): void {
    if (vectors.length === 0 || vectors.length > 255) throw new Error(`a passage has 1 to 255 units, not ${vectors.length}`);
    this.remove(passageId);
    let group = this.groupOf.get(containerId);
    if (group === undefined) {
      group = this.groupOf.size;
      this.groupOf.set(containerId, group);
    }
    this.scanner.reserve(this.size + vectors.length, this.groupOf.size);
    const first = this.size;
    this.size += vectors.length;
    this.grow();
    this.slotsOf.set(passageId, first * 256 + vectors.length);
    for (const [i, vector] of vectors.entries()) this.fill(first + i, passageId, group, vector);
  }

  remove(passageId: number): void {
    const packed = this.slotsOf.get(passageId);
    if (packed === undefined) return;
    const first = Math.floor(packed / 256);
    const count = packed % 256;
    this.scanner.groups.fill(-1, first, first + count);
    this.slotsOf.delete(passageId);
    this.dead += count;
    // Replaced and removed units leave holes; once they are most of the index, close them.
    if (this.dead > 1024 && this.dead > this.size / 2) this.compact();
  }

  /**
   * The `k` passages (by their best unit's cosine) nearest the query among the given containers: a
   * Hamming scan over the codes picks candidate units, which are rescored with the int8 vectors.
   * `query` must be normalized.
   */
  search(query: Float32Array, containerIds: string[], k: number): VectorHit[] {
    const wanted = new Uint8Array(this.groupOf.size);
    let any = false;
    for (const id of containerIds) {
      const g = this.groupOf.get(id);
      if (g === undefined) continue;
      wanted[g] = 1;
      any = true;
    }
    if (!any || k <= 0) return [];
    const qcode = new Uint32Array(this.scanner.words);
    for (let i = 0; i < query.length; i++) if (query[i]! > 0) qcode[i >>> 5]! |= 1 << (i & 31);

    // Hamming distances of the wanted slots (others marked unreachable), and a histogram of them
    // to find the cut-off that leaves about `pool` candidates for rescoring.
    const unreachable = this.dimensions + 1;
    this.scanner.scan(qcode, this.size, wanted, unreachable);
    const { distances: dist, histogram } = this.scanner;
    // Every unit nearer than `cutoff`, and of those exactly at it only as many as fill the pool:
    // the bucket at the boundary can hold thousands.
    const pool = Math.max(RESCORE_MIN, k * 10);
    let cutoff = 0;
    let nearer = 0;
    while (cutoff <= this.dimensions && nearer + histogram[cutoff]! < pool) nearer += histogram[cutoff++]!;
    let atCutoff = pool - nearer;

    const best = new Map<number, number>();
    const dims = this.dimensions;
    for (let s = 0; s < this.size; s++) {
      const d = dist[s]!;
      if (d > cutoff || d === unreachable || (d === cutoff && atCutoff-- <= 0)) continue;
      let dot = 0;
      for (let i = 0, base = s * dims; i < dims; i++) dot += this.values[base + i]! * query[i]!;
      const score = dot * this.inverseNorms[s]!;
      const id = this.ids[s]!;
      if (score > (best.get(id) ?? -Infinity)) best.set(id, score);
    }
    const hits = [...best].map(([passageId, score]) => ({ passageId, score }));
    hits.sort((a, b) => b.score - a.score);
    return hits.slice(0, k);
  }

  private fill(slot: number, passageId: number, group: number, vector: Int8Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, index ${this.dimensions}`);
    this.ids[slot] = passageId;
    this.scanner.groups[slot] = group;
    this.values.set(vector, slot * this.dimensions);
    const { codes, words } = this.scanner;
    let norm = 0;
    // A code word at a time, built in a local: the codes live in WebAssembly memory, slower to update bit by bit.
    for (let w = 0, base = slot * words; w < words; w++) {
      let word = 0;
      for (let i = w * 32, end = Math.min(vector.length, i + 32); i < end; i++) {
        const x = vector[i]!;
        norm += x * x;
        if (x > 0) word |= 1 << (i & 31);
      }
      codes[base + w] = word;
    }
    this.inverseNorms[slot] = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  }

  /** Moves the live units down over the dead ones, keeping each passage's units together. */
  private compact(): void {
    const dims = this.dimensions;
    const { codes, groups, words } = this.scanner;
    let to = 0;
    for (let from = 0; from < this.size;) {
      if (groups[from]! < 0) {
        from++;
        continue;
      }
      const id = this.ids[from]!;
      const count = this.slotsOf.get(id)! % 256;
      this.slotsOf.set(id, to * 256 + count);
      for (let i = 0; i < count; i++, from++, to++) {
        this.ids[to] = this.ids[from]!;
        groups[to] = groups[from]!;
        this.inverseNorms[to] = this.inverseNorms[from]!;
        codes.copyWithin(to * words, from * words, (from + 1) * words);
        this.values.copyWithin(to * dims, from * dims, (from + 1) * dims);
      }
    }
    this.size = to;
    this.dead = 0;
  }

  private grow(): void {
    if (this.size <= this.ids.length) return;
    let capacity = this.ids.length;
    while (capacity < this.size) capacity *= 2;
    const grown = <T extends Float64Array | Int8Array | Float32Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.ids = grown(this.ids, capacity);
    this.inverseNorms = grown(this.inverseNorms, capacity);
    this.values = grown(this.values, capacity * this.dimensions);
  }
}

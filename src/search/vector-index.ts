/**
 * The in-memory vector index over every passage's embedding, for fast nearest neighbours.
 * SQLite (sqlite-vec) holds the durable copy; this holds a compact one: a 1-bit code per
 * dimension for a Hamming scan, and an int8 copy for exact-enough rescoring of the best
 * candidates. At 100,000 passages of 256 dimensions that is about 29 MB.
 */

const RESCORE_MIN = 200;

export interface VectorHit {
  passageId: number;
  /** Cosine similarity, from -1 to 1. */
  score: number;
}

export class VectorIndex {
  private readonly words: number;
  private size = 0;
  private ids = new Float64Array(1024);
  private groups = new Int32Array(1024);
  private codes: Uint32Array;
  private values: Int8Array;
  private scales = new Float32Array(1024);
  private readonly slotOf = new Map<number, number>();
  private readonly groupOf = new Map<string, number>();

  constructor(readonly dimensions: number) {
    this.words = Math.ceil(dimensions / 32);
    this.codes = new Uint32Array(1024 * this.words);
    this.values = new Int8Array(1024 * dimensions);
  }

  get count(): number {
    return this.slotOf.size;
  }

  /** Adds or replaces a passage's vector, filed under its container. */
  add(passageId: number, containerId: string, vector: Float32Array): void {
    if (vector.length !== this.dimensions) throw new Error(`vector has ${vector.length} dimensions, index ${this.dimensions}`);
    let slot = this.slotOf.get(passageId);
    if (slot === undefined) {
      slot = this.size++;
      this.grow();
      this.slotOf.set(passageId, slot);
    }
    let group = this.groupOf.get(containerId);
    if (group === undefined) this.groupOf.set(containerId, (group = this.groupOf.size));
    this.ids[slot] = passageId;
    this.groups[slot] = group;
    let max = 0;
    for (let i = 0; i < vector.length; i++) max = Math.max(max, Math.abs(vector[i]!));
    const scale = max > 0 ? max / 127 : 1;
    this.scales[slot] = scale;
    const base = slot * this.dimensions;
    const codeBase = slot * this.words;
    this.codes.fill(0, codeBase, codeBase + this.words);
    for (let i = 0; i < vector.length; i++) {
      this.values[base + i] = Math.round(vector[i]! / scale);
      if (vector[i]! > 0) this.codes[codeBase + (i >>> 5)]! |= 1 << (i & 31);
    }
  }

  remove(passageId: number): void {
    const slot = this.slotOf.get(passageId);
    if (slot === undefined) return;
    this.groups[slot] = -1;
    this.slotOf.delete(passageId);
  }

  clear(): void {
    this.size = 0;
    this.slotOf.clear();
  }

  /**
   * The `k` nearest passages (by cosine) among the given containers: a Hamming scan over the
   * codes picks candidates, which are rescored with the int8 vectors. `query` must be normalized.
   */
  search(query: Float32Array, containerIds: string[], k: number): VectorHit[] {
    const wanted = new Set<number>();
    for (const id of containerIds) {
      const g = this.groupOf.get(id);
      if (g !== undefined) wanted.add(g);
    }
    if (wanted.size === 0 || k <= 0) return [];
    const qcode = new Uint32Array(this.words);
    for (let i = 0; i < query.length; i++) if (query[i]! > 0) qcode[i >>> 5]! |= 1 << (i & 31);

    // Hamming distances of the wanted slots, and a histogram to find the candidates' cut-off.
    const slots: number[] = [];
    const dist: number[] = [];
    const histogram = new Uint32Array(this.dimensions + 1);
    for (let s = 0; s < this.size; s++) {
      if (!wanted.has(this.groups[s]!)) continue;
      let d = 0;
      const base = s * this.words;
      for (let w = 0; w < this.words; w++) d += popcount(this.codes[base + w]! ^ qcode[w]!);
      slots.push(s);
      dist.push(d);
      histogram[d]!++;
    }
    const pool = Math.max(RESCORE_MIN, k * 10);
    let cutoff = 0;
    for (let seen = 0; cutoff <= this.dimensions && seen < pool; cutoff++) seen += histogram[cutoff]!;

    const hits: VectorHit[] = [];
    for (let j = 0; j < slots.length; j++) {
      if (dist[j]! >= cutoff) continue;
      const s = slots[j]!;
      const base = s * this.dimensions;
      let dot = 0;
      for (let i = 0; i < this.dimensions; i++) dot += this.values[base + i]! * query[i]!;
      hits.push({ passageId: this.ids[s]!, score: dot * this.scales[s]! });
    }
    hits.sort((a, b) => b.score - a.score);
    return hits.slice(0, k);
  }

  private grow(): void {
    if (this.size <= this.ids.length) return;
    const capacity = this.ids.length * 2;
    const grown = <T extends Float64Array | Int32Array | Uint32Array | Int8Array | Float32Array>(a: T, n: number): T => {
      const b = new (a.constructor as new (n: number) => T)(n);
      b.set(a);
      return b;
    };
    this.ids = grown(this.ids, capacity);
    this.groups = grown(this.groups, capacity);
    this.scales = grown(this.scales, capacity);
    this.codes = grown(this.codes, capacity * this.words);
    this.values = grown(this.values, capacity * this.dimensions);
  }
}

function popcount(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  return (((x + (x >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

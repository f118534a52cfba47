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
  /** Scratch space for one search's Hamming distances, reused across searches. */
  private distances = new Uint16Array(0);

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

  /**
   * The `k` nearest passages (by cosine) among the given containers: a Hamming scan over the
   * codes picks candidates, which are rescored with the int8 vectors. `query` must be normalized.
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
    const words = this.words;
    const qcode = new Uint32Array(words);
    for (let i = 0; i < query.length; i++) if (query[i]! > 0) qcode[i >>> 5]! |= 1 << (i & 31);

    // Hamming distances of the wanted slots (others marked unreachable), and a histogram of them
    // to find the cut-off that leaves about `pool` candidates for rescoring.
    if (this.distances.length < this.size) this.distances = new Uint16Array(this.ids.length);
    const dist = this.distances;
    const unreachable = this.dimensions + 1;
    const histogram = new Uint32Array(this.dimensions + 2);
    const { codes, groups } = this;
    for (let s = 0; s < this.size; s++) {
      const g = groups[s]!;
      if (g < 0 || wanted[g] === 0) {
        dist[s] = unreachable;
        continue;
      }
      let d = 0;
      for (let w = 0, base = s * words; w < words; w++) d += popcount(codes[base + w]! ^ qcode[w]!);
      dist[s] = d;
      histogram[d]!++;
    }
    const pool = Math.max(RESCORE_MIN, k * 10);
    let cutoff = 0;
    for (let seen = 0; cutoff <= this.dimensions && seen < pool; cutoff++) seen += histogram[cutoff]!;

    const hits: VectorHit[] = [];
    const dims = this.dimensions;
    for (let s = 0; s < this.size; s++) {
      if (dist[s]! >= cutoff) continue;
      let dot = 0;
      for (let i = 0, base = s * dims; i < dims; i++) dot += this.values[base + i]! * query[i]!;
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

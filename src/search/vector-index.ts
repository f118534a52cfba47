/**
 * The in-memory vector index of one embedding tier, for fast nearest neighbours. SQLite holds the
 * durable copy; this holds a compact one of every unit vector (a passage whole and its sentence
 * groups): a 1-bit code per dimension for a Hamming scan (in WebAssembly, hamming-scan.ts), and the
 * int8 vector for rescoring the best candidates. A passage scores as its best unit ("max-sim").
 *
 * A code is taken from the unit less the index's mean, turned by a randomised Hadamard transform:
 * embeddings share a common direction, which signs about the origin mostly encode, and a model
 * reduced by PCA (the built-in static one) holds most of its variance in its first dimensions, which
 * one bit a dimension under-serves; spread evenly, every bit says as much. Both together find more
 * of the true nearest among the scan's candidates (bench/vector-recall.ts: recall@10 against exact
 * search 0.60 → 0.88 at 100k generated passages, fast tier). The mean is re-estimated, and every
 * code redone, each time the index doubles, up to RECENTER_UNTIL units.
 *
 * A large index scans only the nearest of its inverted lists of codes (inverted-lists.ts); the scan's
 * shortlist is ordered more finely from the codes (code-estimates.ts) before any row is read. The int8
 * copies live outside the heap, in a file of rows (index-rows.ts), kept with the rest of the index's
 * state by `save` for `restore` at the next start (saved-indexes.ts says when a saved copy is trusted).
 */
import { CodeEstimates, PASSAGES_LEAST, RESCORED, SHORTLISTED } from './code-estimates';
import { HammingScan } from './hamming-scan';
import { IndexRows } from './index-rows';
import { readSnapshot, writeSnapshot } from './index-snapshot';
import { InvertedLists, type ListsState } from './inverted-lists';
import { PassageSlots } from './passage-slots';
import type { ScanShare } from './shared-scan';

/** Units after which the mean is taken as settled: later doublings would redo every code for nothing. */
const RECENTER_UNTIL = 32_768;

/**
 * Raised whenever codes are made differently or the state saved changes: a copy saved by another
 * release is then rebuilt. A copy of format 1 (before the inverted lists) is read without lists,
 * which are filed after the start (vector-indexes.ts).
 */
const SAVED_FORMAT = 2;

/** What `save` writes before the arrays, and `restore` checks. */
interface SavedHeader {
  format: number;
  token: string;
  dimensions: number;
  size: number;
  dead: number;
  summed: number;
  centeredAt: number;
  /** Container ids by group. */
  containers: string[];
  /** Entries of the passage-to-slots table. */
  entries: number;
  /** Absent from a copy of format 1. */
  lists?: ListsState;
}

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
  /** The int8 vectors by slot. */
  private readonly rows: IndexRows;
  /** 1 / the int8 vector's length, so that a dot product with a unit query is a cosine. */
  private inverseNorms = new Float32Array(1024);
  /** The mean the codes are taken about, and the sum of every unit added (normalised) it comes from. */
  private readonly center: Float32Array;
  private readonly sum: Float64Array;
  private summed = 0;
  private centeredAt = 0;
  /** The transform's random sign for each dimension. */
  private readonly signs: Float32Array;
  /** A passage's first slot and unit count, as first * 256 + count. */
  private slotsOf = new PassageSlots();
  private readonly groupOf = new Map<string, number>();
  /** The codes' lists, once the index is large (inverted-lists.ts): `state.k` of them, 0 below. */
  readonly inverted: InvertedLists;
  /** Units a passage asked for shortlisted by the scan, and rescored of those (vector-recall.ts tries others). */
  shortlisted = SHORTLISTED;
  rescored = RESCORED;
  private readonly estimates: CodeEstimates;

  /** `rowsPath`: the file of int8 rows, made anew unless `keepRows` (a restored index's). */
  constructor(
    readonly dimensions: number,
    rowsPath: string,
    keepRows = false,
  ) {
    this.scanner = new HammingScan(dimensions, 1024);
    this.inverted = new InvertedLists(this.scanner);
    this.rows = new IndexRows(dimensions, rowsPath, keepRows);
    this.estimates = new CodeEstimates(this.scanner);
    this.center = new Float32Array(dimensions);
    this.sum = new Float64Array(dimensions);
    let seed = 20_261_124;
    this.signs = Float32Array.from({ length: dimensions }, () => {
      seed = (seed * 16_807) % 2_147_483_647;
      return seed & 1 ? 1 : -1;
    });
  }

  /** Makes room for `units` more unit vectors at once: building from the store knows how many come. */
  reserve(units: number): void {
    this.scanner.reserve(this.size + units, this.groupOf.size + 1);
    this.grow(this.size + units);
  }

  /** Lends the scans a helper thread (shared-scan.ts). */
  shareScans(): ScanShare {
    return this.scanner.share();
  }

  /** The token a saved state at `statePath` was written with, or null when there is none to read. */
  static savedToken(statePath: string): string | null {
    const reader = readSnapshot(statePath);
    if (!reader) return null;
    reader.close();
    const { token } = reader.header as unknown as SavedHeader;
    return typeof token === 'string' ? token : null;
  }

  /**
   * The index as `save` left it at `statePath`, its rows in `rowsPath`; null when there is no copy
   * saved with `token` for these dimensions, or it cannot be read whole.
   */
  static restore(dimensions: number, rowsPath: string, statePath: string, token: string): VectorIndex | null {
    const reader = readSnapshot(statePath);
    if (!reader) return null;
    let index: VectorIndex | null = null;
    try {
      const saved = reader.header as unknown as SavedHeader;
      if (![1, SAVED_FORMAT].includes(saved.format) || saved.token !== token || saved.dimensions !== dimensions)
        return null;
      index = new VectorIndex(dimensions, rowsPath, true);
      if (index.rows.stored < saved.size) throw new Error('the rows file is short');
      const { size } = saved;
      index.grow(size);
      index.scanner.reserve(size, Math.max(1, saved.containers.length));
      for (const [group, id] of saved.containers.entries()) index.groupOf.set(id, group);
      for (const section of [
        index.ids.subarray(0, size),
        index.inverseNorms.subarray(0, size),
        index.center,
        index.sum,
      ])
        reader.next(section);
      reader.next(index.scanner.codes.subarray(0, size * index.scanner.words));
      reader.next(index.scanner.groups.subarray(0, size));
      index.slotsOf = PassageSlots.restore(saved.entries, (ids, values) => {
        reader.next(ids);
        reader.next(values);
      });
      if (saved.format === SAVED_FORMAT) index.inverted.restore(saved.lists!, (section) => reader.next(section));
      index.size = size;
      index.dead = saved.dead;
      index.summed = saved.summed;
      index.centeredAt = saved.centeredAt;
      return index;
    } catch {
      index?.close();
      return null;
    } finally {
      reader.close();
    }
  }

  /**
   * Writes the index's state to `statePath` for `restore`, which must present `token`; its rows are
   * flushed to their file and to disk first; its lists as they are (filed by `organize`, not here:
   * minutes at a million passages). Throws if a row cannot be written (a full disk).
   */
  save(statePath: string, token: string): void {
    this.rows.sync();
    const [ids, values] = this.slotsOf.entries();
    const { size, dead, summed, centeredAt } = this;
    const header: SavedHeader = {
      format: SAVED_FORMAT,
      token,
      dimensions: this.dimensions,
      size,
      dead,
      summed,
      centeredAt,
      containers: [...this.groupOf.keys()],
      entries: ids.length,
      lists: this.inverted.state,
    };
    writeSnapshot(statePath, header, [
      this.ids.subarray(0, size),
      this.inverseNorms.subarray(0, size),
      this.center,
      this.sum,
      this.scanner.codes.subarray(0, size * this.scanner.words),
      this.scanner.groups.subarray(0, size),
      ids,
      values,
      ...this.inverted.sections(),
    ]);
  }

  /**
   * Makes or updates a large index's lists (inverted-lists.ts) a step at a time, each followed by
   * `between`, until done or `stop` says so.
   */
  async organize(between: () => Promise<unknown> = async () => {}, stop = () => false): Promise<void> {
    for (const _ of this.inverted.organizing(this.size, this.units)) {
      await between();
      if (stop()) return;
    }
  }

  /** Lets go of the rows file (IndexRows.close). */
  close(): void {
    this.rows.close();
  }

  /** How many passages the index holds. */
  get count(): number {
    return this.slotsOf.size;
  }

  /** Whether the index holds the passage. */
  has(passageId: number): boolean {
    return this.slotsOf.get(passageId) !== undefined;
  }

  /** The ids of the passages the index holds. */
  passageIds(): number[] {
    return this.slotsOf.passageIds();
  }

  /** A passage's cosine with `query` (normalised): its best unit's, as `search` scores it; null when not held. */
  similarity(passageId: number, query: Float32Array): number | null {
    const packed = this.slotsOf.get(passageId);
    if (packed === undefined) return null;
    const slots = Array.from({ length: packed % 256 }, (_, unit) => Math.floor(packed / 256) + unit);
    return Math.max(...slots.map((slot) => this.rows.dot(slot, query) * this.inverseNorms[slot]!));
  }

  /** How many unit vectors the index holds. */
  get units(): number {
    return this.size - this.dead;
  }

  /** Adds or replaces a passage's unit vectors (at most 255), filed under its container. */
  add(passageId: number, containerId: string, vectors: Int8Array[]): void {
    if (vectors.length === 0 || vectors.length > 255)
      throw new Error(`a passage has 1 to 255 units, not ${vectors.length}`);
    this.remove(passageId);
    let group = this.groupOf.get(containerId);
    if (group === undefined) {
      group = this.groupOf.size;
      this.groupOf.set(containerId, group);
    }
    this.scanner.reserve(this.size + vectors.length, this.groupOf.size);
    const first = this.size;
    this.size += vectors.length;
    this.grow(this.size);
    this.slotsOf.set(passageId, first * 256 + vectors.length);
    for (const [i, vector] of vectors.entries()) this.fill(first + i, passageId, group, vector);
    if (this.summed >= 2 * this.centeredAt && this.summed >= 64 && this.centeredAt < RECENTER_UNTIL) this.recenter();
  }

  remove(passageId: number): void {
    const packed = this.slotsOf.get(passageId);
    if (packed === undefined) return;
    const first = Math.floor(packed / 256);
    const count = packed % 256;
    for (let slot = first; slot < first + count; slot++) this.scanner.groups[this.inverted.positionOf(slot)] = -1;
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
    const groups = containerIds.map((id) => this.groupOf.get(id)).filter((g) => g !== undefined);
    for (const g of groups) wanted[g] = 1;
    if (!groups.length || k <= 0) return [];
    this.stage(query, 1);
    this.scanner.encodeQuery();

    // Hamming distances of the wanted slots (others marked unreachable), and a histogram of them
    // to find the cut-off that leaves about `pool` candidates for rescoring. A large index reads
    // only the slots of its nearest lists.
    const unreachable = this.dimensions + 1;
    const scanned = this.inverted.scan(this.size, wanted, unreachable);
    const { histogram } = this.scanner;
    // Every unit nearer than `cutoff`, and of those exactly at it only as many as fill the pool:
    // the bucket at the boundary can hold thousands. With fewer reachable units than the pool, all.
    const passages = Math.max(PASSAGES_LEAST, k);
    const pool = passages * this.shortlisted;
    let cutoff = 0;
    let nearer = 0;
    while (cutoff < this.dimensions && nearer + histogram[cutoff]! < pool) nearer += histogram[cutoff++]!;
    const shortlist = this.inverted.slotsScanned(this.scanner.select(scanned, cutoff, pool - nearer, pool));
    const candidates = this.estimates.best(shortlist, (s) => this.inverted.positionOf(s), passages * this.rescored);

    const best = new Map<number, number>();
    for (const s of candidates) {
      const score = this.rows.dot(s, query) * this.inverseNorms[s]!;
      const id = this.ids[s]!;
      if (score > (best.get(id) ?? -Infinity)) best.set(id, score);
    }
    const hits = [...best].map(([passageId, score]) => ({ passageId, score }));
    hits.sort((a, b) => b.score - a.score);
    return hits.slice(0, k);
  }

  private fill(slot: number, passageId: number, group: number, vector: Int8Array): void {
    if (vector.length !== this.dimensions)
      throw new Error(`vector has ${vector.length} dimensions, index ${this.dimensions}`);
    this.ids[slot] = passageId;
    this.scanner.groups[slot] = group;
    // Slots are filled in order at the end.
    this.rows.append(slot, vector);
    let norm = 0;
    for (let i = 0; i < vector.length; i++) norm += vector[i]! * vector[i]!;
    const inverse = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    this.inverseNorms[slot] = inverse;
    for (let i = 0; i < vector.length; i++) this.sum[i]! += vector[i]! * inverse;
    this.summed++;
    this.encode(slot, vector, inverse);
  }

  /** Writes a slot's code: the signs of its normalised unit's transform (see the top of the file). */
  private encode(slot: number, vector: Int8Array, inverse: number): void {
    this.stage(vector, inverse);
    this.scanner.encode(slot);
  }

  /** Puts D·(vector × scale − mean) in the scanner's staging floats, zero-padded (the scanner does the Hadamard). */
  private stage(vector: ArrayLike<number>, scale: number): void {
    const staged = this.scanner.staged;
    for (let i = 0; i < this.dimensions; i++) staged[i] = (vector[i]! * scale - this.center[i]!) * this.signs[i]!;
    staged.fill(0, this.dimensions);
  }

  /** Takes the mean of every unit added so far as the centre, and redoes every slot's code about it. */
  private recenter(): void {
    for (let i = 0; i < this.dimensions; i++) this.center[i] = this.sum[i]! / this.summed;
    this.centeredAt = this.summed;
    // A dead slot's code is redone too, harmlessly.
    this.rows.forEach(this.size, (slot, row) => this.encode(slot, row, this.inverseNorms[slot]!));
  }

  /** Moves the live units down over the dead ones, keeping each passage's units together. */
  private compact(): void {
    this.rows.flush();
    // Every code back at its slot's position: they move with their slots; the next `organize` files them again.
    this.inverted.unfile();
    const { codes, groups, words } = this.scanner;
    let to = 0;
    for (let from = 0; from < this.size; ) {
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
        this.rows.move(from, to);
      }
    }
    this.rows.truncate(to);
    this.size = to;
    this.dead = 0;
  }

  private grow(slots: number): void {
    if (slots <= this.ids.length) return;
    let capacity = this.ids.length;
    while (capacity < slots) capacity *= 2;
    const grown = <T extends Float64Array | Float32Array>(a: T): T => {
      const b = new (a.constructor as new (n: number) => T)(capacity);
      b.set(a);
      return b;
    };
    this.ids = grown(this.ids);
    this.inverseNorms = grown(this.inverseNorms);
  }
}

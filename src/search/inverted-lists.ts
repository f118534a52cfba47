/**
 * An inverted file over a large vector index's codes, so that a search reads a few lists of them
 * rather than every code: the codes are split into lists around centres (binary k-means on a
 * sample: a centre is its members' majority bit), and a search scans only the lists whose centres
 * are nearest the query, then rescores as the whole scan does. A list's codes sit together in the
 * scanner's memory, so that its scan streams through them as the whole scan does (read slot by
 * slot, scattered, a fifth of the codes took twice as long as all of them in a row): positions
 * 0…filed−1 hold the filed slots' codes and groups list after list, and `slotAt` / `positionOf`
 * translate. Slots added since (the tail, at their own positions) are scanned whole until the next
 * `organize` files them in their nearest list; removed slots stay, marked dead in their groups.
 *
 * Only an index of more than LISTED_FROM units has lists: below it the whole scan is fast, and
 * search exactly what it was. docs/performance.md has what the lists cost in recall and what they
 * save (bench/vector-recall.ts).
 */
import { type HammingScan, MAX_LISTS } from './hamming-scan';

/** Live units from which an index has lists. */
export const LISTED_FROM = 200_000;
/** Units a list holds on average (k = units / this, up to MAX_LISTS). */
const UNITS_A_LIST = 1024;
/** Sample codes a list's centre is trained on, and the k-means rounds. */
const SAMPLE_A_LIST = 32;
const ROUNDS = 6;
/**
 * The share of the filed units a search scans at least, nearest lists first, and the least codes it
 * scans, chosen by recall against exact max-sim (bench/vector-recall.ts --shares), not against the
 * whole scan's list, a noisy target. At a million passages 15 % finds what the whole scan does
 * (recall@10 / @30, fast tier 0.802 / 0.689 against 0.799 / 0.684; 35 % 0.805 / 0.690), at ~34 ms
 * less CPU a search for both tiers' indexes; at 100,000 (~440 lists) 15 % loses 0.02–0.04 where
 * 35 %, 157,409 codes, does not: hence the least. Rescoring twice the pool would raise recall by
 * 0.05–0.1, but a row is a read of its own: it cost ~7 ms more a search over HTTP at 100,000 (the
 * codes' estimates, code-estimates.ts, now pick the rows to read from a larger shortlist instead).
 */
const PROBED_SHARE = 0.15;
const PROBED_LEAST = 160_000;
/** Codes compared with the centres in one step of `organizing`: ~6 ms with 4,096 lists on a quiet host. */
const ASSIGN_STEP = 256;

/** What `save` keeps of the lists, and `restore` takes back. */
export interface ListsState {
  k: number;
  filed: number;
  trainedAt: number;
}

export class InvertedLists {
  /** Lists; 0 while the index has none. */
  private k = 0;
  /** Live units when the centres were trained: they are trained again once the index doubles. */
  private trainedAt = 0;
  /** Positions 0…filed−1 hold filed slots, by list; later positions are the tail's own slots. */
  private filed = 0;
  /** Where each list starts among the positions (k + 1 of them). */
  private starts = new Uint32Array(1);
  /** The slot at each filed position, and the position of each filed slot. */
  private slots = new Uint32Array(0);
  private positions = new Uint32Array(0);
  /**
   * Each list's centre as the share of its sample members with each bit set, from −1 (none) to 1
   * (all): a search ranks the lists by these against the query's transformed vector itself (at 58
   * lists no better than by Hamming distance to the centres' codes, 0.836 against 0.835 of the
   * whole scan's top 30; not compared at 4,096 lists, where it costs more).
   */
  private weights = new Float32Array(0);
  /** Calls of `unfile` so far. */
  private unfiled = 0;
  /** The ranges of positions the last scan read, or null when it read every code. */
  private scanned: Uint32Array | null = null;
  /** The share of the filed units a search reads, and the least (bench/vector-recall.ts tries others). */
  probedShare = PROBED_SHARE;
  probedLeast = PROBED_LEAST;
  /** Codes the last search scanned: every one, or its lists' and the tail's. */
  lastScanned = 0;

  constructor(private readonly scanner: HammingScan) {}

  get state(): ListsState {
    return { k: this.k, filed: this.filed, trainedAt: this.trainedAt };
  }

  /** The arrays `save` writes after the state, in order. */
  sections(): ArrayBufferView[] {
    return [this.scanner.centres.subarray(0, this.k * this.scanner.words), this.weights, this.starts, this.slots];
  }

  /** Takes back a saved state; `next` fills each of `sections` in turn. */
  restore(state: ListsState, next: (into: ArrayBufferView) => void): void {
    if (state.k > MAX_LISTS || state.k < 0) throw new Error(`${state.k} lists`);
    this.k = state.k;
    this.trainedAt = state.trainedAt;
    this.filed = state.filed;
    this.weights = new Float32Array(state.k * this.scanner.words * 32);
    this.starts = new Uint32Array(state.k + 1);
    this.slots = new Uint32Array(state.filed);
    for (const section of this.sections()) next(section);
    this.positions = inverse(this.slots);
  }

  /** The slot whose code is at `position`. */
  private slotAt(position: number): number {
    return position < this.filed ? this.slots[position]! : position;
  }

  /** Where the code of `slot` is. */
  positionOf(slot: number): number {
    return slot < this.filed ? this.positions[slot]! : slot;
  }

  /**
   * Brings the lists up to the index's `size` slots (`live` units): trains centres when the index
   * has grown past LISTED_FROM or doubled since they were trained, and files every slot not filed
   * yet. Minutes of one core at a million passages, in steps of a few hundredths of a second (the
   * codes change places only in the last), for a caller that answers searches between them.
   */
  *organizing(size: number, live: number): Generator<void> {
    if (live < LISTED_FROM) {
      if (this.k) this.unfile();
      this.k = 0;
      return;
    }
    if (!this.k || live >= 2 * this.trainedAt) {
      this.unfile();
      // No lists until trained: a save meanwhile keeps none, and searches scan every code.
      this.k = 0;
    }
    // The index may change between steps: added slots wait for the next call; moved ones (a
    // compaction, which unfiles the codes) end this one.
    const moves = this.unfiled;
    if (!this.k) yield* this.train(size, live);
    if (this.filed === size || this.unfiled !== moves) return;
    // Each slot's list: the filed ones' as they are, the tail's the nearest centre's.
    const listOf = new Uint16Array(size);
    for (let l = 0; l < this.k; l++)
      for (let p = this.starts[l]!; p < this.starts[l + 1]!; p++) listOf[this.slots[p]!] = l;
    for (let from = this.filed; from < size; from += ASSIGN_STEP) {
      this.scanner.assignSlots(from, this.k, listOf.subarray(from, Math.min(size, from + ASSIGN_STEP)));
      yield;
      if (this.unfiled !== moves) return;
    }
    // Positions by list, each list in slot order: a counting sort.
    const starts = new Uint32Array(this.k + 1);
    for (let s = 0; s < size; s++) starts[listOf[s]! + 1]!++;
    for (let l = 0; l < this.k; l++) starts[l + 1]! += starts[l]!;
    const at = starts.slice(0, this.k);
    const slots = new Uint32Array(size);
    for (let s = 0; s < size; s++) slots[at[listOf[s]!]!++] = s;
    // The code now at each new position comes from the slot's old position.
    this.permute(slots.map((s) => this.positionOf(s)));
    this.starts = starts;
    this.slots = slots;
    this.positions = inverse(slots);
    this.filed = size;
  }

  /**
   * Puts every code back at its slot's own position, the lists kept to file them again: before the
   * index moves its slots (a compaction), and before the centres are trained again.
   */
  unfile(): void {
    this.unfiled++;
    if (!this.filed) return;
    // The code now at each slot's own position is the one at the slot's filed position.
    this.permute(Uint32Array.from({ length: this.filed }, (_, s) => this.positions[s]!));
    this.filed = 0;
    this.slots = new Uint32Array(0);
    this.positions = new Uint32Array(0);
    this.starts = new Uint32Array(this.k + 1);
  }

  /**
   * Scans for the query just encoded (its transformed vector still `staged`) the codes of the
   * nearest lists and the tail, or every code when the index has no lists or the tail is most of it
   * (a whole scan is then as fast), as `HammingScan.scan` does; returns how many it scanned.
   */
  scan(size: number, wanted: Uint8Array, unreachable: number): number {
    this.scanned = this.probe(size);
    if (!this.scanned) this.scanner.scan(size, wanted, unreachable);
    else this.scanner.scanRanges(this.scanned, wanted, unreachable);
    this.lastScanned = this.scanned?.reduce((n, x, i) => n + (i % 2 ? x : -x), 0) ?? size;
    return this.lastScanned;
  }

  /** The slots of the codes `picked` (by their place in the last scan's order, ascending). */
  slotsScanned(picked: Int32Array): Int32Array | number[] {
    const ranges = this.scanned;
    // A whole scan of filed codes (a tail larger than them) read them at their filed positions too.
    if (!ranges) return this.filed ? Array.from(picked, (p) => this.slotAt(p)) : picked;
    const slots: number[] = [];
    let r = 0;
    let before = 0;
    for (const i of picked) {
      while (i >= before + ranges[r + 1]! - ranges[r]!) {
        before += ranges[r + 1]! - ranges[r]!;
        r += 2;
      }
      slots.push(this.slotAt(ranges[r]! + i - before));
    }
    return slots;
  }

  /**
   * The ranges of positions (start, end, …) a search of the query reads (the scanner's, just
   * encoded: its transformed vector still `staged`): the nearest lists' and the tail's; null when
   * the index has no lists or the tail is most of it (a whole scan is then as fast).
   */
  private probe(size: number): Uint32Array | null {
    if (!this.k || size - this.filed > this.filed) return null;
    const { staged } = this.scanner;
    const bits = this.weights.length / this.k;
    // Bits past the staged floats (a code padded to whole 128-bit steps) are never set.
    const used = Math.min(bits, staged.length);
    const near = new Float32Array(this.k);
    for (let l = 0; l < this.k; l++) {
      let score = 0;
      for (let b = 0, at = l * bits; b < used; b++) score += staged[b]! * this.weights[at + b]!;
      near[l] = score;
    }
    const order = Uint32Array.from({ length: this.k }, (_, l) => l).sort((a, b) => near[b]! - near[a]!);
    const wanted = Math.max(this.probedShare * this.filed, this.probedLeast);
    const ranges: number[] = [];
    let n = 0;
    for (const l of order) {
      if (n >= wanted) break;
      const [start, end] = [this.starts[l]!, this.starts[l + 1]!];
      if (end > start) ranges.push(start, end);
      n += end - start;
    }
    if (size > this.filed) ranges.push(this.filed, size);
    return Uint32Array.from(ranges);
  }

  /** Moves the scanner's codes and groups so that position p holds what was at `from[p]` (a permutation). */
  private permute(from: Uint32Array): void {
    const { codes, groups, words } = this.scanner;
    const code = new Uint32Array(words);
    const done = new Uint8Array(from.length);
    for (let p = 0; p < from.length; p++) {
      if (done[p] || from[p] === p) continue;
      // One cycle: p takes from[p]'s, which takes its from's, … until the cycle comes back to p.
      code.set(codes.subarray(p * words, (p + 1) * words));
      const group = groups[p]!;
      let at = p;
      for (let source = from[at]!; source !== p; at = source, source = from[at]!) {
        codes.copyWithin(at * words, source * words, (source + 1) * words);
        groups[at] = groups[source]!;
        done[at] = 1;
      }
      codes.set(code, at * words);
      groups[at] = group;
      done[at] = 1;
    }
  }

  /** Binary k-means on a sample of the live codes (at their slots' own positions), into the scanner's `centres`. */
  private *train(size: number, live: number): Generator<void> {
    const { scanner } = this;
    const { words, codes, groups, centres } = scanner;
    const k = Math.min(MAX_LISTS, Math.max(16, Math.round(live / UNITS_A_LIST)));
    // Every step-th live slot.
    const step = Math.max(1, Math.floor(live / (k * SAMPLE_A_LIST)));
    const picked: number[] = [];
    for (let s = 0, seen = 0; s < size; s++) if (groups[s]! >= 0 && seen++ % step === 0) picked.push(s);
    const sample = new Uint32Array(picked.length * words);
    for (const [i, s] of picked.entries()) sample.set(codes.subarray(s * words, (s + 1) * words), i * words);
    const spread = Math.floor(picked.length / k);
    for (let l = 0; l < k; l++) centres.set(sample.subarray(l * spread * words, (l * spread + 1) * words), l * words);

    const bits = words * 32;
    const listOf = new Uint16Array(picked.length);
    const ones = new Uint32Array(k * bits);
    const counts = new Uint32Array(k);
    for (let round = 0; round < ROUNDS; round++) {
      for (let i = 0; i < picked.length; i += ASSIGN_STEP) {
        const end = Math.min(picked.length, i + ASSIGN_STEP);
        scanner.assignCodes(sample.subarray(i * words, end * words), k, listOf.subarray(i, end));
        yield;
      }
      ones.fill(0);
      counts.fill(0);
      for (let i = 0; i < picked.length; i++) {
        const l = listOf[i]!;
        counts[l]!++;
        for (let w = 0; w < words; w++) {
          const word = sample[i * words + w]!;
          if (word === 0) continue;
          const base = l * bits + w * 32;
          for (let b = 0; b < 32; b++) if ((word >>> b) & 1) ones[base + b]!++;
        }
      }
      for (let l = 0; l < k; l++) {
        // A list nothing joined keeps its centre.
        if (!counts[l]) continue;
        for (let w = 0; w < words; w++) {
          let word = 0;
          for (let b = 0; b < 32; b++) if (2 * ones[l * bits + w * 32 + b]! > counts[l]!) word |= 1 << b;
          centres[l * words + w] = word >>> 0;
        }
      }
    }
    this.weights = new Float32Array(k * bits);
    for (let l = 0; l < k; l++)
      for (let b = 0; b < bits; b++)
        this.weights[l * bits + b] = counts[l] ? (2 * ones[l * bits + b]!) / counts[l]! - 1 : 0;
    this.k = k;
    this.starts = new Uint32Array(k + 1);
    this.trainedAt = live;
  }
}

/** The inverse of a permutation. */
function inverse(permutation: Uint32Array): Uint32Array<ArrayBuffer> {
  const inverted = new Uint32Array(permutation.length);
  for (let i = 0; i < permutation.length; i++) inverted[permutation[i]!] = i;
  return inverted;
}

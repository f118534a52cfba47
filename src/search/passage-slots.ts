/**
 * Where each passage's units sit in a vector index (a number the index packs), by passage id: two
 * typed arrays sorted by id and searched by bisection. A Map took ~64 bytes a passage, 6.5 MiB a
 * tier at 100k passages; these take 16. Passages come mostly in increasing id order (an index is
 * built by id, and new passages get higher ids), so adding one is nearly always an append; one
 * added below others moves only those above it. A removed passage leaves a tombstone, swept once
 * tombstones are half the entries, so that forgetting many passages at once stays cheap.
 */

const REMOVED = -1;

export class PassageSlots {
  private ids = new Float64Array(1024);
  /** The packed value by entry, or REMOVED. */
  private values = new Float64Array(1024);
  /** Entries in use, tombstones included. */
  private length = 0;
  private removed = 0;

  /** Entries as stored (ids, and values with tombstones), for saving; views, valid until the next change. */
  entries(): [Float64Array, Float64Array] {
    return [this.ids.subarray(0, this.length), this.values.subarray(0, this.length)];
  }

  /** Entries saved by `entries`, of which there are `length`: `fill` puts them in the two arrays it is given. */
  static restore(length: number, fill: (ids: Float64Array, values: Float64Array) => void): PassageSlots {
    const slots = new PassageSlots();
    const capacity = Math.max(1024, 2 ** Math.ceil(Math.log2(length)));
    slots.ids = new Float64Array(capacity);
    slots.values = new Float64Array(capacity);
    fill(slots.ids.subarray(0, length), slots.values.subarray(0, length));
    slots.length = length;
    for (let i = 0; i < length; i++) if (slots.values[i] === REMOVED) slots.removed++;
    return slots;
  }

  /** The ids of the passages held, in increasing order. */
  passageIds(): number[] {
    const held: number[] = [];
    for (let i = 0; i < this.length; i++) if (this.values[i] !== REMOVED) held.push(this.ids[i]!);
    return held;
  }

  /** Passages held. */
  get size(): number {
    return this.length - this.removed;
  }

  get(passageId: number): number | undefined {
    const i = this.find(passageId);
    return i < this.length && this.ids[i] === passageId && this.values[i] !== REMOVED ? this.values[i] : undefined;
  }

  /** `value` must not be negative. */
  set(passageId: number, value: number): void {
    if (this.length === 0 || passageId > this.ids[this.length - 1]!) {
      this.reserve();
      this.ids[this.length] = passageId;
      this.values[this.length++] = value;
      return;
    }
    const i = this.find(passageId);
    if (this.ids[i] === passageId) {
      if (this.values[i] === REMOVED) this.removed--;
      this.values[i] = value;
      return;
    }
    this.reserve();
    this.ids.copyWithin(i + 1, i, this.length);
    this.values.copyWithin(i + 1, i, this.length);
    this.ids[i] = passageId;
    this.values[i] = value;
    this.length++;
  }

  delete(passageId: number): void {
    const i = this.find(passageId);
    if (i === this.length || this.ids[i] !== passageId || this.values[i] === REMOVED) return;
    this.values[i] = REMOVED;
    this.removed++;
    if (this.removed > 1024 && this.removed > this.length / 2) this.sweep();
  }

  /** The first entry whose id is not below `passageId` (`length` when there is none). */
  private find(passageId: number): number {
    let lo = 0;
    let hi = this.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.ids[mid]! < passageId) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Room for one more entry. */
  private reserve(): void {
    if (this.length < this.ids.length) return;
    const grow = (a: Float64Array) => {
      const b = new Float64Array(a.length * 2);
      b.set(a);
      return b;
    };
    this.ids = grow(this.ids);
    this.values = grow(this.values);
  }

  /** Drops the tombstones, keeping the order. */
  private sweep(): void {
    let to = 0;
    for (let from = 0; from < this.length; from++) {
      if (this.values[from] === REMOVED) continue;
      this.ids[to] = this.ids[from]!;
      this.values[to++] = this.values[from]!;
    }
    this.length = to;
    this.removed = 0;
  }
}

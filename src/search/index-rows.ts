/**
 * The int8 vectors of a vector index, outside the heap: a file of fixed-size rows by slot, read
 * back a row at a time for the few hundred candidates of a search (~0.4 ms for 500 rows). In memory
 * they were ~250 MiB at 100k passages (docs/performance.md). The file is made anew with the index,
 * or kept with the rest of its state for a restore at the next start. A row the file refuses (a
 * full disk) is kept in memory instead, so search goes on answering with every passage it has.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';
import { isStorageFull } from '../errors';

/** Rows buffered before one write to the file: building the index appends slot after slot. */
const WRITE_BATCH = 4096;

export class IndexRows {
  private fd: number;
  /** Rows not yet written to the file: `pending` slots from `pendingFrom`. */
  private readonly batch: Int8Array;
  private pending = 0;
  private pendingFrom = 0;
  private readonly row: Int8Array;
  /** Rows the file refused (a full disk), by slot, until the slot is written again. */
  private readonly spilled = new Map<number, Int8Array>();

  /** `path`: the file, made anew unless `keep` (a restored index's). */
  constructor(
    private readonly dimensions: number,
    path: string,
    keep = false,
  ) {
    this.fd = openSync(path, keep ? 'r+' : 'w+', 0o600);
    this.batch = new Int8Array(WRITE_BATCH * dimensions);
    this.row = new Int8Array(dimensions);
  }

  /** How many whole rows the file holds. */
  get stored(): number {
    return Math.floor(fstatSync(this.fd).size / this.dimensions);
  }

  /** Sets the row of `slot`, the next after the last appended: written when a batch is full. */
  append(slot: number, vector: Int8Array): void {
    if (this.pending === WRITE_BATCH) this.flush();
    if (this.pending === 0) this.pendingFrom = slot;
    this.batch.set(vector, this.pending++ * this.dimensions);
  }

  /** Writes the batched rows to the file. */
  flush(): void {
    if (this.pending === 0) return;
    this.write(this.pendingFrom, this.batch.subarray(0, this.pending * this.dimensions));
    this.pending = 0;
  }

  /** A slot's row (rows still batched are written first): a view valid until the next read. */
  read(slot: number): Int8Array {
    this.flush();
    const spilled = this.spilled.size ? this.spilled.get(slot) : undefined;
    if (spilled) return spilled;
    readSync(this.fd, this.row, 0, this.dimensions, slot * this.dimensions);
    return this.row;
  }

  /** A slot's row's dot product with `query`. */
  dot(slot: number, query: Float32Array): number {
    const row = this.read(slot);
    let dot = 0;
    for (let i = 0; i < this.dimensions; i++) dot += row[i]! * query[i]!;
    return dot;
  }

  /** Calls `each` with every row of slots 0…count−1, read back in long runs. */
  forEach(count: number, each: (slot: number, row: Int8Array) => void): void {
    this.flush();
    const dims = this.dimensions;
    for (let from = 0; from < count; from += WRITE_BATCH) {
      const rows = Math.min(WRITE_BATCH, count - from);
      readSync(this.fd, this.batch, 0, rows * dims, from * dims);
      for (let r = 0; r < rows; r++)
        each(from + r, this.spilled.get(from + r) ?? this.batch.subarray(r * dims, (r + 1) * dims));
    }
  }

  /** Copies the row of slot `from` to slot `to` (closing the holes of removed units). */
  move(from: number, to: number): void {
    if (to !== from) this.write(to, this.read(from));
  }

  /** Forgets the rows kept in memory for slots from `end` on: they are no longer in use. */
  truncate(end: number): void {
    for (const slot of this.spilled.keys()) if (slot >= end) this.spilled.delete(slot);
  }

  /** Writes every row to the file and to disk. Throws if a row cannot be written (a full disk). */
  sync(): void {
    this.flush();
    for (const [slot, row] of this.spilled) this.write(slot, row);
    if (this.spilled.size) throw new Error('the disk refuses some rows of the index');
    fsyncSync(this.fd);
  }

  /**
   * Lets go of the file. A write after this throws: the number could by then be a descriptor
   * SQLite opened on the store, which the rows would overwrite ("How To Corrupt", 1.1).
   */
  close(): void {
    if (this.fd < 0) return;
    closeSync(this.fd);
    this.fd = -1;
  }

  /** Writes rows from `slot` on; the ones a full disk refuses are kept in memory instead. */
  private write(slot: number, rows: Int8Array): void {
    const dims = this.dimensions;
    let written = 0;
    try {
      written = writeSync(this.fd, rows, 0, rows.length, slot * dims);
    } catch (err) {
      if (!isStorageFull(err)) throw err;
    }
    const whole = Math.floor(written / dims);
    if (this.spilled.size) for (let i = 0; i < whole; i++) this.spilled.delete(slot + i);
    for (let i = whole; i < rows.length / dims; i++) this.spilled.set(slot + i, rows.slice(i * dims, (i + 1) * dims));
  }
}

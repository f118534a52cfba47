/**
 * A file that holds a vector index's state between a clean stop and the next start: a JSON header,
 * then typed arrays, each at an offset that is a multiple of 8 bytes. It is written whole to a new
 * file, flushed to disk and renamed over the old one, so a reader finds the previous copy or this
 * one, never half of one. Whether a copy may be trusted is the caller's (search-engine.ts): the
 * header carries the token that says so.
 */
import { closeSync, fstatSync, fsyncSync, openSync, readSync, renameSync, rmSync, writeSync } from 'node:fs';

const MAGIC = 'engram-vector-index 1\n';
const pad8 = (n: number) => Math.ceil(n / 8) * 8;

/** Writes `header` and `sections` to `path`, replacing what was there only once all is on disk. */
export function writeSnapshot(path: string, header: object, sections: ArrayBufferView[]): void {
  const head = Buffer.from(`${MAGIC}${JSON.stringify({ ...header, sections: sections.map((s) => s.byteLength) })}\n`);
  const temporary = `${path}.tmp`;
  const fd = openSync(temporary, 'w', 0o600);
  try {
    let at = 0;
    const put = (bytes: Uint8Array) => {
      for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, bytes.length - done, at + done);
      at = pad8(at + bytes.length);
    };
    put(head);
    for (const s of sections) put(new Uint8Array(s.buffer, s.byteOffset, s.byteLength));
    fsyncSync(fd);
  } catch (err) {
    closeSync(fd);
    rmSync(temporary, { force: true });
    throw err;
  }
  closeSync(fd);
  renameSync(temporary, path);
}

export interface SnapshotReader {
  header: Record<string, unknown>;
  /** Fills `into` with the next section; throws unless it is exactly that section's size. */
  next(into: ArrayBufferView): void;
  close(): void;
}

/** Opens a snapshot to read, or null when there is none (or it is not one: a different format). */
export function readSnapshot(path: string): SnapshotReader | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const first = Buffer.alloc(Math.min(fstatSync(fd).size, 1 << 20));
    readSync(fd, first, 0, first.length, 0);
    const end = first.indexOf('\n', MAGIC.length);
    if (!first.subarray(0, MAGIC.length).equals(Buffer.from(MAGIC)) || end < 0)
      throw new Error('not a vector index snapshot');
    const header = JSON.parse(first.toString('utf8', MAGIC.length, end)) as Record<string, unknown>;
    const sizes = header.sections as number[];
    let at = pad8(end + 1);
    let index = 0;
    return {
      header,
      next(into) {
        if (into.byteLength !== sizes[index++]) throw new Error('a snapshot section is not the size expected');
        const bytes = new Uint8Array(into.buffer, into.byteOffset, into.byteLength);
        for (let done = 0; done < bytes.length; ) {
          const n = readSync(fd, bytes, done, bytes.length - done, at + done);
          if (n === 0) throw new Error('the snapshot ends early');
          done += n;
        }
        at = pad8(at + bytes.length);
      },
      close: () => closeSync(fd),
    };
  } catch {
    closeSync(fd);
    return null;
  }
}

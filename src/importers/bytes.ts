/**
 * The bytes an import reads: a file a chunk at a time, and the entries of a zip archive, each
 * streamed out of the archive without unpacking it (yauzl reads the archive's central directory,
 * so the entries not wanted, such as a ChatGPT export's images, are never read). Memory stays at a
 * chunk whatever the size. Each read counts its bytes, for the import's progress.
 */
import { open as openFile } from 'node:fs/promises';
import yauzl from 'yauzl';
import { refusal } from './problem';

/** Told the number of bytes just read. */
export type OnBytes = (bytes: number) => void;

/** A file's bytes, a chunk at a time. */
export async function* fileChunks(path: string, onBytes: OnBytes): AsyncGenerator<Uint8Array> {
  for await (const chunk of Bun.file(path).stream()) {
    onBytes(chunk.length);
    yield chunk;
  }
}

/** Whether the file starts as a zip archive does (a local file header, or the end record of an empty one). */
export async function isZip(path: string): Promise<boolean> {
  const handle = await openFile(path, 'r');
  try {
    const head = new Uint8Array(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return bytesRead === 4 && head[0] === 0x50 && head[1] === 0x4b && ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6));
  } finally {
    await handle.close();
  }
}

export interface ZipEntry {
  /** Its path inside the archive, with forward slashes. */
  name: string;
  /** Its size once unpacked. */
  size: number;
  modified: Date;
  entry: yauzl.Entry;
}

/** A zip archive opened for reading its entries, each as often as needed (an import reads its source twice). */
export class ZipArchive {
  private constructor(private readonly zip: yauzl.ZipFile, readonly label: string, readonly entries: ZipEntry[]) {}

  /** Opens the archive and lists its files (not its folders); a file that is no readable zip is refused, named by `label`. */
  static async open(path: string, label: string): Promise<ZipArchive> {
    const broken = (err: Error) => refusal({ file: label }, `is not a zip archive that can be read: ${err.message}`);
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, z) => (err ? reject(broken(err)) : resolve(z))));
    const entries = await new Promise<ZipEntry[]>((resolve, reject) => {
      const found: ZipEntry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith('/')) found.push({ name: entry.fileName, size: entry.uncompressedSize, modified: entry.getLastModDate(), entry });
        zip.readEntry();
      });
      zip.on('end', () => resolve(found));
      zip.on('error', (err: Error) => reject(broken(err)));
      zip.readEntry();
    }).catch((err) => {
      zip.close();
      throw err;
    });
    return new ZipArchive(zip, label, entries);
  }

  /** An entry's unpacked bytes, a chunk at a time; damage found on the way is refused naming the entry. */
  async *chunks(entry: ZipEntry, onBytes: OnBytes): AsyncGenerator<Uint8Array> {
    const file = `${this.label}/${entry.name}`;
    const stream = await new Promise<NodeJS.ReadableStream>((resolve, reject) =>
      this.zip.openReadStream(entry.entry, (err, s) => (err ? reject(refusal({ file }, `cannot be unpacked: ${err.message}`)) : resolve(s))));
    try {
      for await (const chunk of stream as AsyncIterable<Buffer>) {
        onBytes(chunk.length);
        yield chunk;
      }
    } catch (err) {
      throw refusal({ file }, `cannot be unpacked: ${(err as Error).message}`);
    } finally {
      (stream as unknown as { destroy?: () => void }).destroy?.();
    }
  }

  /** An entry whole, for the small ones (a note); refused beyond `maxBytes`. */
  async bytes(entry: ZipEntry, maxBytes: number, onBytes: OnBytes): Promise<Uint8Array> {
    if (entry.size > maxBytes) throw refusal({ file: `${this.label}/${entry.name}` }, `is larger than ${maxBytes} bytes.`);
    const parts: Uint8Array[] = [];
    for await (const chunk of this.chunks(entry, onBytes)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  close(): void {
    this.zip.close();
  }
}

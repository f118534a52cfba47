/**
 * The entries of a zip archive, each streamed out of the archive without unpacking it: yauzl reads
 * the archive's central directory, so the entries not wanted (a ChatGPT export's photos) are never
 * read. Memory stays at a chunk whatever the size.
 */
import yauzl from 'yauzl';
import type { OnBytes } from './bytes';
import { refusal } from './problem';

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
  private constructor(
    private readonly zip: yauzl.ZipFile,
    readonly label: string,
    readonly entries: ZipEntry[],
  ) {}

  /**
   * Opens the archive and lists its files (not its folders); a file that is no readable zip is
   * refused, named by `label`.
   */
  static async open(path: string, label: string): Promise<ZipArchive> {
    const broken = (err: Error) => refusal({ file: label }, `is not a zip archive that can be read: ${err.message}`);
    const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
      yauzl.open(path, { lazyEntries: true, autoClose: false }, (err, z) => (err ? reject(broken(err)) : resolve(z))),
    );
    const entries = await new Promise<ZipEntry[]>((resolve, reject) => {
      const found: ZipEntry[] = [];
      zip.on('entry', (entry: yauzl.Entry) => {
        if (!entry.fileName.endsWith('/'))
          found.push({ name: entry.fileName, size: entry.uncompressedSize, modified: entry.getLastModDate(), entry });
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
      this.zip.openReadStream(entry.entry, (err, s) =>
        err ? reject(refusal({ file }, `cannot be unpacked: ${err.message}`)) : resolve(s),
      ),
    );
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

  /** An entry whole, for the small ones (a note: its reader bounds their size). */
  async bytes(entry: ZipEntry, onBytes: OnBytes): Promise<Uint8Array> {
    const parts: Uint8Array[] = [];
    for await (const chunk of this.chunks(entry, onBytes)) parts.push(chunk);
    return Buffer.concat(parts);
  }

  close(): void {
    this.zip.close();
  }
}

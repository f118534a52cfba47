/**
 * The bytes an import reads from a file, a chunk at a time (memory stays at a chunk), each read
 * counted for the import's progress.
 */
import { open as openFile } from 'node:fs/promises';

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
    return (
      bytesRead === 4 &&
      head[0] === 0x50 &&
      head[1] === 0x4b &&
      ((head[2] === 3 && head[3] === 4) || (head[2] === 5 && head[3] === 6))
    );
  } finally {
    await handle.close();
  }
}

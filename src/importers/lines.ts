/**
 * The lines of a JSON Lines file (an Engram export, the MCP memory server's file) read out of a
 * stream one at a time, each bounded in length, so memory holds one line whatever the file's size.
 */
import { refusal } from './problem';

export interface TextLine {
  text: string;
  /** From 1. */
  number: number;
}

const NEWLINE = 10;

/**
 * The lines `chunks` hold, without their line ends (`\n` or `\r\n`). Refuses, naming `file` and the
 * line, one longer than `maxLineBytes` and one that is not UTF-8.
 */
export async function* textLines(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  maxLineBytes: number,
): AsyncGenerator<TextLine> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let parts: Uint8Array[] = [];
  let pending = 0;
  let number = 0;
  const line = (bytes: Uint8Array): TextLine => {
    number++;
    const end = bytes.length && bytes[bytes.length - 1] === 13 ? bytes.length - 1 : bytes.length;
    try {
      return { text: decoder.decode(bytes.subarray(0, end)), number };
    } catch {
      throw refusal({ file, line: number }, 'is not UTF-8 text.');
    }
  };
  const tooLong = () =>
    refusal({ file, line: number + 1 }, `is longer than ${maxLineBytes} bytes: too long to import.`);
  for await (const chunk of chunks) {
    let start = 0;
    for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, start)) {
      if (pending + i - start > maxLineBytes) throw tooLong();
      const piece = chunk.subarray(start, i);
      yield line(parts.length ? Buffer.concat([...parts, piece]) : piece);
      parts = [];
      pending = 0;
      start = i + 1;
    }
    if (start < chunk.length) {
      pending += chunk.length - start;
      if (pending > maxLineBytes) throw tooLong();
      parts.push(chunk.slice(start));
    }
  }
  if (pending) yield line(Buffer.concat(parts));
}

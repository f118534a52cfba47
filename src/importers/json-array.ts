/**
 * The elements of a JSON array read out of a stream one at a time (the ChatGPT and Claude exports
 * are one array each, of any size), so that memory holds one element, not the file. Parsing is
 * @streamparser/json's; this adds where each element starts and where the first problem is, as a
 * line and a column, so that a broken file is refused naming the place.
 */
import { Tokenizer, TokenParser, TokenType } from '@streamparser/json';
import { ServiceError } from '../errors';
import { refusal, type SourcePosition } from './problem';

export interface ArrayElement {
  value: unknown;
  /** From 0, in the order of the array. */
  index: number;
  /** Where it starts. */
  at: SourcePosition;
}

/** The largest element read (a conversation, as JSON): years of one chat fit, and it is what bounds an import's memory. */
export const MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

const VALUE_STARTS = new Set([TokenType.LEFT_BRACE, TokenType.LEFT_BRACKET, TokenType.STRING, TokenType.NUMBER, TokenType.TRUE, TokenType.FALSE, TokenType.NULL]);

/**
 * Line and column of byte offsets in a stream read a chunk at a time. JSON holds a raw newline
 * only between tokens, so a token that began in an earlier chunk began after that chunk's last
 * newline: the counts kept at each chunk's end answer for it.
 */
class Lines {
  private chunk: Uint8Array = new Uint8Array(0);
  private chunkStart = 0;
  /** Counted up to `cursor` (an absolute offset). */
  private cursor = 0;
  private line = 1;
  private lineStart = 0;

  next(chunk: Uint8Array): void {
    this.finish();
    this.chunkStart += this.chunk.length;
    this.chunk = chunk;
  }

  /** Counts the rest of the current chunk. */
  finish(): void {
    this.count(this.chunkStart + this.chunk.length);
  }

  at(file: string, offset: number): SourcePosition {
    this.count(offset);
    return { file, line: this.line, column: Math.max(offset, this.lineStart) - this.lineStart + 1 };
  }

  private count(to: number): void {
    const end = Math.min(to, this.chunkStart + this.chunk.length);
    for (let i = this.chunk.indexOf(10, this.cursor - this.chunkStart); i !== -1 && i < end - this.chunkStart; i = this.chunk.indexOf(10, i + 1)) {
      this.line++;
      this.lineStart = this.chunkStart + i + 1;
    }
    this.cursor = Math.max(this.cursor, end);
  }
}

/** The quoted character or token a parser error names ("}" in `Unexpected "}" at ...`), for a message of ours. */
function unexpected(message: string): string {
  const m = /Unexpected [A-Z_]* ?\(?"((?:[^"\\]|\\.)*)"/.exec(message);
  return m ? `unexpected ${JSON.stringify(m[1])}` : 'malformed';
}

/**
 * The elements of the array `chunks` hold, each with its place. Refuses, naming `file` and the
 * line and column: a value that is not an array, JSON that is broken or cut short, and an element
 * larger than `maxElementBytes` (named `what` and its number: "conversation 12").
 */
export async function* jsonArrayElements(chunks: AsyncIterable<Uint8Array>, file: string, what: string, maxElementBytes: number): AsyncGenerator<ArrayElement> {
  const tokenizer = new Tokenizer();
  const parser = new TokenParser({ paths: ['$.*'], keepStack: false });
  const lines = new Lines();
  const ready: ArrayElement[] = [];
  let depth = 0;
  let index = 0;
  let tokenOffset = 0;
  let read = 0;
  let element: { start: number; at: SourcePosition } | null = null;

  tokenizer.onToken = (t) => {
    tokenOffset = t.offset;
    if (depth === 0 && t.token !== TokenType.LEFT_BRACKET) {
      throw refusal(lines.at(file, t.offset), `expected a JSON array of ${what}s, found ${t.token === TokenType.LEFT_BRACE ? 'an object' : 'a single value'}.`);
    }
    if (depth === 1 && VALUE_STARTS.has(t.token)) element = { start: t.offset, at: lines.at(file, t.offset) };
    if (t.token === TokenType.LEFT_BRACE || t.token === TokenType.LEFT_BRACKET) depth++;
    if (t.token === TokenType.RIGHT_BRACE || t.token === TokenType.RIGHT_BRACKET) depth--;
    parser.write(t);
  };
  parser.onValue = ({ value }) => {
    ready.push({ value, index: index++, at: element!.at });
    element = null;
  };
  tokenizer.onError = (err) => {
    // A refusal of ours thrown from onToken (or the token parser) comes back through here.
    if (err instanceof ServiceError) throw err;
    const offset = Number(/absolute position "(\d+)"/.exec(err.message)?.[1] ?? tokenOffset);
    throw refusal(lines.at(file, offset), `not valid JSON: ${unexpected(err.message)}.`);
  };
  parser.onError = (err) => {
    throw refusal(lines.at(file, tokenOffset), `not valid JSON: ${unexpected(err.message)}.`);
  };

  for await (const chunk of chunks) {
    lines.next(chunk);
    read += chunk.length;
    tokenizer.write(chunk);
    const current = element as { start: number; at: SourcePosition } | null;
    if (current && read - current.start > maxElementBytes) {
      throw refusal(current.at, `${what} ${index + 1} is larger than ${maxElementBytes} bytes: too large to import.`);
    }
    yield* ready.splice(0);
  }
  lines.finish();
  if (depth === 0 && !tokenizer.isEnded && read === 0) throw refusal({ file }, `is empty: expected a JSON array of ${what}s.`);
  if (!parser.isEnded) throw refusal(lines.at(file, read), 'ends before its JSON does: the file is cut short.');
  yield* ready.splice(0);
}

/**
 * One JSON value held whole (a line of a JSON Lines file), parsed natively; when it is broken, the
 * streaming tokenizer finds where, for the refusal (`at` is where the text starts).
 */
export function parseJsonText(text: string, at: SourcePosition): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const bytes = new TextEncoder().encode(text);
    let problem: { offset: number; message: string } | null = null;
    const tokenizer = new Tokenizer({ separator: '' });
    tokenizer.onToken = () => {};
    tokenizer.onError = (err) => {
      problem ??= { offset: Number(/absolute position "(\d+)"/.exec(err.message)?.[1] ?? bytes.length), message: err.message };
    };
    tokenizer.write(bytes);
    if (!problem) tokenizer.end();
    const found = problem as { offset: number; message: string } | null;
    const column = (at.column ?? 1) + (found?.offset ?? bytes.length);
    throw refusal({ ...at, column }, found && found.offset < bytes.length ? `not valid JSON: ${unexpected(found.message)}.` : 'not valid JSON: it ends too early.');
  }
}

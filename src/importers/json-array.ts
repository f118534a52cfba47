/**
 * The elements of a JSON array read out of a stream one at a time (the ChatGPT and Claude exports
 * are one array each, of any size), so that memory holds one element, not the file.
 *
 * A scan of the bytes finds where each element starts and ends (strings, escapes and nesting
 * followed; raw newlines counted for lines), and each element is parsed by the runtime's own
 * JSON.parse. That reads about three times as fast as parsing token by token in JavaScript
 * (@streamparser/json, measured on a conversations.json: docs/performance.md), which is kept for
 * what the runtime's parser does not say: where a broken element breaks. Every refusal names the
 * file, line and column (columns count bytes).
 */
import { Tokenizer, TokenParser } from '@streamparser/json';
import { refusal, type SourcePosition } from './problem';

export interface ArrayElement {
  value: unknown;
  /** From 0, in the order of the array. */
  index: number;
  /** Where it starts. */
  at: SourcePosition;
}

/**
 * The largest element read (a conversation, as JSON): years of one chat fit, and it is what bounds
 * an import's memory.
 */
export const MAX_ELEMENT_BYTES = 64 * 1024 * 1024;

const QUOTE = 34;
const BACKSLASH = 92;
const NEWLINE = 10;
const isSpace = (b: number) => b === 32 || b === 10 || b === 13 || b === 9;

/** The line and column `k` bytes into `bytes`, which start at `at`. */
function positionIn(bytes: Uint8Array, k: number, at: SourcePosition): SourcePosition {
  let line = at.line ?? 1;
  let lineStart = -1;
  for (let i = bytes.indexOf(NEWLINE); i !== -1 && i < k; i = bytes.indexOf(NEWLINE, i + 1)) {
    line++;
    lineStart = i;
  }
  return { file: at.file, line, column: lineStart === -1 ? (at.column ?? 1) + k : k - lineStart };
}

/** The quoted character or token a tokenizer error names ("}" in `Unexpected "}" at ...`), for a message of ours. */
function unexpected(message: string): string {
  const m = /Unexpected [A-Z_]* ?\(?"((?:[^"\\]|\\.)*)"/.exec(message);
  return m ? `unexpected ${JSON.stringify(m[1])}` : 'malformed';
}

/**
 * Where JSON the runtime would not parse is broken, and how: the streaming tokenizer reads it to
 * the first problem. `at` is where `bytes` start; a value that is whole but cut short is placed at its end.
 */
function locate(bytes: Uint8Array, at: SourcePosition): { at: SourcePosition; message: string } {
  let problem: { offset: number; message: string } | null = null;
  let tokenAt = 0;
  const tokenizer = new Tokenizer();
  // The tokenizer finds broken tokens; the token parser, tokens out of place (two commas, a missing colon).
  const parser = new TokenParser({ paths: ['$'], keepStack: false });
  parser.onValue = () => {};
  parser.onError = (err) => {
    problem ??= { offset: tokenAt, message: err.message };
  };
  tokenizer.onToken = (token) => {
    tokenAt = token.offset;
    if (!problem) parser.write(token);
  };
  tokenizer.onError = (err) => {
    problem ??= {
      offset: Number(/absolute position "(\d+)"/.exec(err.message)?.[1] ?? bytes.length),
      message: err.message,
    };
  };
  tokenizer.write(bytes);
  if (!problem) tokenizer.end();
  const found = problem as { offset: number; message: string } | null;
  if (found && found.offset < bytes.length)
    return { at: positionIn(bytes, found.offset, at), message: `not valid JSON: ${unexpected(found.message)}.` };
  return { at: positionIn(bytes, bytes.length, at), message: 'not valid JSON: it ends too early.' };
}

/** One element's bytes parsed, or refused where they break. */
function parseElement(bytes: Uint8Array, at: SourcePosition): unknown {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    throw refusal(at, 'is not UTF-8 text.');
  }
  try {
    return JSON.parse(text);
  } catch {
    const problem = locate(bytes, at);
    throw refusal(problem.at, problem.message);
  }
}

/**
 * One JSON value held whole (a line of a JSON Lines file), parsed natively; when it is broken, the
 * streaming tokenizer finds where, for the refusal (`at` is where the text starts).
 */
export function parseJsonText(text: string, at: SourcePosition): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const problem = locate(new TextEncoder().encode(text), at);
    throw refusal(problem.at, problem.message);
  }
}

type Expect = 'array' | 'element or end' | 'element' | 'comma or end' | 'nothing';

/**
 * The elements of the array `chunks` hold, each with its place. Refuses, naming `file` and the
 * line and column: a value that is not an array, JSON that is broken or cut short, and an element
 * larger than `maxElementBytes` (named `what` and its number: "conversation 12").
 */
export async function* jsonArrayElements(
  chunks: AsyncIterable<Uint8Array>,
  file: string,
  what: string,
  maxElementBytes: number,
): AsyncGenerator<ArrayElement> {
  let expect: Expect = 'array';
  let index = 0;
  let line = 1;
  let lineStart = 0;
  let chunkStart = 0;
  /** The element being read: where it started, its bytes so far, how deep it is, whether inside a string. */
  let element: { at: SourcePosition; parts: Uint8Array[]; size: number; depth: number } | null = null;
  let inString = false;
  const where = (offset: number): SourcePosition => ({ file, line, column: offset - lineStart + 1 });
  const refuse = (offset: number, message: string) => refusal(where(offset), message);
  const tooLarge = (at: SourcePosition) =>
    refusal(at, `${what} ${index + 1} is larger than ${maxElementBytes} bytes: too large to import.`);

  for await (const chunk of chunks) {
    let from = 0; // where the element's bytes in this chunk begin
    let i = 0;
    while (i < chunk.length) {
      if (element) {
        if (inString) {
          // The next quote that no backslash escapes ends the string; strings are most of an export's bytes.
          const quote = chunk.indexOf(QUOTE, i);
          if (quote === -1) {
            i = chunk.length;
            break;
          }
          let slashes = 0;
          for (let k = quote - 1; k >= from && chunk[k] === BACKSLASH; k--) slashes++;
          // A run of backslashes reaching back to the chunk's start goes on in the element's earlier bytes.
          if (quote - slashes === from) slashes += trailingBackslashes(element.parts);
          i = quote + 1;
          if (slashes % 2 === 0) inString = false;
          continue;
        }
        const b = chunk[i]!;
        if (b === QUOTE) inString = true;
        else if (b === 123 || b === 91) element.depth++;
        else if (b === 125 || b === 93) element.depth--;
        else if (b === NEWLINE) {
          line++;
          lineStart = chunkStart + i + 1;
        }
        i++;
        if (element.depth === 0) {
          const bytes = chunk.subarray(from, i);
          if (element.size + bytes.length > maxElementBytes) throw tooLarge(element.at);
          const whole = element.parts.length ? Buffer.concat([...element.parts, bytes]) : bytes;
          yield { value: parseElement(whole, element.at), index: index++, at: element.at };
          element = null;
          expect = 'comma or end';
        }
        continue;
      }
      const b = chunk[i]!;
      const offset = chunkStart + i;
      if (isSpace(b)) {
        if (b === NEWLINE) {
          line++;
          lineStart = offset + 1;
        }
        i++;
        continue;
      }
      if (expect === 'array') {
        if (b !== 91)
          throw refuse(
            offset,
            `expected a JSON array of ${what}s, found ${b === 123 ? 'an object' : 'something else'}.`,
          );
        expect = 'element or end';
      } else if (expect === 'comma or end' && b === 44) {
        expect = 'element';
      } else if ((expect === 'comma or end' || expect === 'element or end') && b === 93) {
        expect = 'nothing';
      } else if ((expect === 'element' || expect === 'element or end') && (b === 123 || b === 91)) {
        // Elements are objects here (conversations, projects); a bare value in the array is refused by its reader.
        element = { at: where(offset), parts: [], size: 0, depth: 1 };
        from = i;
      } else if ((expect === 'element' || expect === 'element or end') && b !== 93 && b !== 44 && b !== 125) {
        throw refuse(offset, `${what} ${index + 1} is not a JSON object.`);
      } else {
        throw refuse(offset, `not valid JSON: unexpected ${JSON.stringify(String.fromCharCode(b))}.`);
      }
      i++;
    }
    if (element) {
      const rest = chunk.subarray(from);
      element.parts.push(rest);
      element.size += rest.length;
      if (element.size > maxElementBytes) throw tooLarge(element.at);
    }
    chunkStart += chunk.length;
  }
  if (element) {
    // Cut short inside an element, or broken early on (a string never closed): the tokenizer says which.
    const problem = locate(Buffer.concat(element.parts), element.at);
    throw refusal(
      problem.at,
      problem.message === 'not valid JSON: it ends too early.'
        ? 'ends before its JSON does: the file is cut short.'
        : problem.message,
    );
  }
  if (expect === 'array') throw refusal({ file }, `is empty: expected a JSON array of ${what}s.`);
  if (expect !== 'nothing') throw refuse(chunkStart, 'ends before its JSON does: the file is cut short.');
}

/** How many backslashes the last of `parts` end in (going back through earlier ones while they are all backslashes). */
function trailingBackslashes(parts: Uint8Array[]): number {
  let n = 0;
  for (let p = parts.length - 1; p >= 0; p--) {
    const bytes = parts[p]!;
    let k = bytes.length - 1;
    while (k >= 0 && bytes[k] === BACKSLASH) k--;
    n += bytes.length - 1 - k;
    if (k >= 0) break;
  }
  return n;
}

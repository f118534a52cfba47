/**
 * The two stream readers every importer stands on, as units: the elements of a JSON array
 * (src/importers/json-array.ts) and the lines of a JSON Lines file (src/importers/lines.ts), read
 * from chunks cut anywhere, as a file or an archive entry arrives; their limits and refusals.
 */
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { jsonArrayElements } from '../../src/importers/json-array';
import { textLines } from '../../src/importers/lines';
import { FIXTURES } from '../helpers/imports';

/** `bytes` as chunks of `size` bytes (the last shorter). */
async function* chunked(bytes: Uint8Array, size: number): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function gather<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}

const elements = (text: string, size: number, max = 1024 * 1024) =>
  gather(jsonArrayElements(chunked(new TextEncoder().encode(text), size), 'list.json', 'entry', max));

const refusalOf = (items: Promise<unknown>) =>
  items.then(
    () => 'no refusal',
    (e: Error) => e.message,
  );

describe('the elements of a JSON array', () => {
  it('are the values JSON.parse reads, at their lines and columns, however the bytes are cut', async () => {
    const text = readFileSync(join(FIXTURES, 'chatgpt/conversations.json'), 'utf8');
    const whole = JSON.parse(text) as unknown[];
    const starts = text.split('\n').flatMap((l, i) => (l.startsWith('  {') ? [{ line: i + 1, column: 3 }] : []));
    for (const size of [1, 2, 3, 7, 64, 4096, text.length]) {
      const read = await elements(text, size);
      expect(read.map((e) => e.value)).toEqual(whole);
      expect(read.map((e) => ({ line: e.at.line, column: e.at.column }))).toEqual(starts);
    }
  });

  it('follow strings through escaped quotes and runs of backslashes cut at any byte', async () => {
    const values = [{ a: 'x\\' }, { a: '"[{' }, { a: '\\"\\\\"' }, { a: 'ü}]\n' }, [1, [2, { b: '\\\\\\' }]]];
    const text = JSON.stringify(values);
    for (let size = 1; size <= 8; size++) expect((await elements(text, size)).map((e) => e.value)).toEqual(values);
  });

  it('are refused where the JSON breaks, where it is cut short, and when an element is over the limit', async () => {
    expect(await refusalOf(elements('[{"a": 1}, {"a": 2,}]', 5))).toBe(
      'list.json:1:20: not valid JSON: unexpected "}".',
    );
    expect(await refusalOf(elements('[{"a": 1},\n {"a": "unclosed', 5))).toBe(
      'list.json:2:17: ends before its JSON does: the file is cut short.',
    );
    expect(await refusalOf(elements('[{"a": 1}', 5))).toBe(
      'list.json:1:10: ends before its JSON does: the file is cut short.',
    );
    expect(await refusalOf(elements('[{"a": 1}, 2]', 5))).toBe('list.json:1:12: entry 2 is not a JSON object.');
    expect(await refusalOf(elements('[{"a": 1}] x', 5))).toBe('list.json:1:12: not valid JSON: unexpected "x".');
    expect(await refusalOf(elements(`[{"a": "${'x'.repeat(100)}"}]`, 16, 64))).toBe(
      'list.json:1:2: entry 1 is larger than 64 bytes: too large to import.',
    );
    expect(
      await refusalOf(
        gather(
          jsonArrayElements(
            chunked(new Uint8Array([91, 123, 34, 0xff, 34, 58, 49, 125, 93]), 4),
            'list.json',
            'entry',
            64,
          ),
        ),
      ),
    ).toBe('list.json:1:2: is not UTF-8 text.');
  });
});

describe('the lines of a JSON Lines file', () => {
  const lines = (bytes: Uint8Array, size: number, max = 1024) =>
    gather(textLines(chunked(bytes, size), 'memory.jsonl', max));

  it('are the text between line ends, \\r\\n or \\n, numbered from 1, however the bytes are cut, characters cut in two included', async () => {
    const bytes = new TextEncoder().encode('first ü\r\n\nthird 🇩🇰\nlast without an end');
    for (const size of [1, 2, 3, 5, bytes.length]) {
      expect(await lines(bytes, size)).toEqual([
        { text: 'first ü', number: 1 },
        { text: '', number: 2 },
        { text: 'third 🇩🇰', number: 3 },
        { text: 'last without an end', number: 4 },
      ]);
    }
  });

  it('are refused at a line over the limit, and at one that is not UTF-8', async () => {
    const long = new TextEncoder().encode(`short\n${'x'.repeat(20)}\n`);
    expect(await refusalOf(lines(long, 4, 10))).toBe('memory.jsonl:2: is longer than 10 bytes: too long to import.');
    expect(await refusalOf(lines(new Uint8Array([111, 107, 10, 0xc3, 0x28, 10]), 2))).toBe(
      'memory.jsonl:2: is not UTF-8 text.',
    );
  });
});

/**
 * The reader of Engram's own export (src/importers/engram.ts) as a unit: an export's lines in, each
 * checked against its version's shape; the header's refusals and the lines an export must not get
 * away with, with where. What an import then stores (nothing doubled, a line the API refuses) is
 * test/operations/import-export.test.ts's and test/e2e/cli/import-own-export.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';
import { openEngramExport } from '../../src/importers/engram';
import type { ImportItem } from '../../src/importers/items';
import {
  EXPORT_CONTAINER as container,
  EXPORT_DOCUMENT as document,
  EXPORT_FACT as fact,
  EXPORT_HEADER as header,
  EXPORT_RULE as rule,
  readItems,
} from '../helpers/imports';
import { scratchDir } from '../helpers/scratch';

/** Writes `lines` (objects as JSON, strings as they are) as export.jsonl; returns the reader opened on it. */
async function exportOf(lines: (string | object)[]) {
  const path = join(scratchDir(), 'export.jsonl');
  await Bun.write(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return openEngramExport(path, 'export.jsonl');
}

const read = async (lines: (string | object)[]) => readItems(exportOf(lines));

/** The message of the refusal reading `lines` ends in. */
async function refusal(lines: (string | object)[]): Promise<string> {
  const err = await read(lines).then(
    () => null,
    (e: Error) => e,
  );
  if (!err) throw new Error('read without a refusal');
  return err.message;
}

const invalids = (items: ImportItem[]) => items.flatMap((i) => (i.kind === 'invalid' ? [i.refusal.message] : []));

describe('an Engram export', () => {
  it('yields each line after the header checked, with its place, and knows the exporting account once the header is read', async () => {
    const reader = await exportOf([header, container, '', document, fact, rule]);
    expect(reader.source!()).toBe('');
    const items: unknown[] = await readItems(reader);
    expect(items).toEqual(
      [container, document, fact, rule].map((line, i) => ({
        kind: 'export-line',
        line,
        at: { file: 'export.jsonl', line: i < 1 ? 2 : i + 3, column: 1 },
      })),
    );
    expect(reader.source!()).toBe('acc_elsewhere');
  });

  it('reads version 1, whose documents had no ids or states and whose facts no sources or history', async () => {
    const { id: _id, status: _s, error: _e, updated_at: _u, learned_at: _l, passages: _p, ...v1Document } = document;
    const { id: _f, source: _src, history: _h, reviewed_at: _r, ...v1Fact } = fact;
    const items = await read([{ ...header, version: 1 }, container, v1Document, v1Fact]);
    expect(items.map((i) => i.kind)).toEqual(['export-line', 'export-line', 'export-line']);
    // Version 2's shape is not asked of it, and version 1's is asked of a version 2 file.
    expect(invalids(await read([header, container, v1Document]))).toEqual([
      'export.jsonl:3:1: not a valid document line: id: Invalid input: expected string, received undefined.',
    ]);
  });

  it('yields a line of a type an export does not have, or of the wrong shape, as an invalid item', async () => {
    const items = await read([header, { type: 'passage' }, { type: 'constructor' }, { ...container, name: '' }]);
    expect(invalids(items)).toEqual([
      'export.jsonl:2:1: a line of a type an export does not have.',
      'export.jsonl:3:1: a line of a type an export does not have.',
      'export.jsonl:4:1: not a valid container line: name: Too small: expected string to have >=1 characters.',
    ]);
  });

  it("bounds a fact's history: 20 MB of earlier wordings, one over a fact's limit, or over 1,000 of them are refused; a bounded one reads", async () => {
    const wording = 'w'.repeat(1024 * 1024); // each as long as a fact may be
    const twentyMb = Array.from({ length: 20 }, (_, i) => ({
      content: `${i} ${wording.slice(0, -3)}`,
      replaced_at: i + 1,
    }));
    const many = Array.from({ length: 1001 }, (_, i) => ({ content: `wording ${i}`, replaced_at: i + 1 }));
    const items = await read([
      header,
      container,
      { ...fact, history: twentyMb },
      { ...fact, history: [{ content: `${wording}!`, replaced_at: 1 }] },
      { ...fact, history: many },
      { ...fact, history: twentyMb.slice(0, 3) },
    ]);
    expect(invalids(items)).toEqual([
      'export.jsonl:3:1: not a valid fact line: history: must hold at most 4194304 bytes of earlier wordings.',
      'export.jsonl:4:1: not a valid fact line: history[0].content: must be at most 1048576 bytes.',
      'export.jsonl:5:1: not a valid fact line: history: Too big: expected array to have <=1000 items.',
    ]);
    expect(items.at(-1)).toMatchObject({ kind: 'export-line', line: { history: twentyMb.slice(0, 3) } });
  });

  it('a line that is not JSON refuses the file where it breaks', async () => {
    expect(await refusal([header, '{"type": "container",, "id": "x"}'])).toBe(
      'export.jsonl:2:22: not valid JSON: unexpected ",".',
    );
  });
});

describe("an export's header", () => {
  it('is refused when the first line is not one, when a second comes, or when there is none', async () => {
    expect(await refusal([container, header])).toBe(
      'export.jsonl:1:1: this is not an Engram export: its first line is not an engram-export header.',
    );
    expect(await refusal([{ ...header, format: 'other' }])).toBe(
      'export.jsonl:1:1: this is not an Engram export: its first line is not an engram-export header.',
    );
    expect(await refusal([header, container, header])).toBe('export.jsonl:3:1: a second header.');
    expect(await refusal(['', '  '])).toBe('export.jsonl: the file is empty: it is not an Engram export.');
  });

  it('with its version written as text, says how to write it; a version this engram does not read is refused as such', async () => {
    expect(await refusal([{ ...header, version: '2' }, container])).toBe(
      'export.jsonl:1:1: the header gives its version as the text "2"; it is a number: write "version": 2.',
    );
    expect(await refusal([{ ...header, version: 'two' }, container])).toBe(
      'export.jsonl:1:1: the header gives its version as the text "two"; it is a number: this engram reads versions 1 and 2.',
    );
    expect(await refusal([{ ...header, version: 3 }])).toBe(
      'export.jsonl:1:1: this Engram export is of version 3; this engram reads versions 1 and 2. Import it with a newer engram.',
    );
    expect(await refusal([{ ...header, account: '' }])).toBe(
      'export.jsonl:1:1: not a valid header: account: Too small: expected string to have >=1 characters.',
    );
  });
});

/**
 * A broken source is refused whole, the command saying where its first problem is, and nothing of
 * it is stored: no container, no document, no fact, no learning queued; even when the problem is
 * the last thing in it, after good ones. One case for each way a source is refused: when it is
 * opened, by the reader part way through, by an entry the reader finds invalid, by the API. Each
 * reader's refusals, with their positions, are test/importers' units.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, writeZip } from '../../helpers/imports';
import { workDir, world, type World } from './import-kit';

const SLOW = 60_000;
const dir = workDir('import-refusals');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const fixture = (path: string) => readFileSync(join(FIXTURES, path), 'utf8');

/** "line:column" of the end of `text` (columns count bytes). */
const end = (text: string) => {
  const lines = text.split('\n');
  return `${lines.length}:${Buffer.byteLength(lines.at(-1)!) + 1}`;
};

describe('a broken source is refused where it breaks, and nothing of it is stored', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  async function refused(file: string, format: string, message: string) {
    const run = w.importing(file, '--from', format);
    expect(run.stderr).toContain(`engram: ${message}\n`);
    expect(run.code).toBe(1);
    expect(await w.containers()).toEqual([]);
    expect((await w.server.services.store.documents.listInInsertOrder(w.accountId, 0, 10)).documents).toEqual([]);
    expect(await w.server.services.store.facts.list(w.accountId)).toEqual([]);
    expect(await w.server.learning.drain()).toBe(0);
  }

  it(
    'JSON cut short inside the archive, a conversation of the wrong shape after good ones, an archive without conversations, a folder',
    async () => {
      const good = fixture('chatgpt/conversations.json');
      const cut = good.slice(0, good.indexOf('"Λεμονόπιτα') + 40);
      await refused(
        await writeZip(join(dir, 'cut.zip'), { 'conversations.json': cut }),
        'chatgpt',
        `cut.zip/conversations.json:${end(cut)}: ends before its JSON does: the file is cut short.`,
      );
      const list = JSON.parse(good);
      list.push({ ...list[0], conversation_id: 'late', id: 'late', mapping: [] });
      const json = join(dir, 'conversations.json');
      const text = JSON.stringify(list, null, 1);
      writeFileSync(json, text);
      // Pretty-printed with one space: each conversation starts a line with " {".
      await refused(
        json,
        'chatgpt',
        `conversations.json:${text.split('\n').lastIndexOf(' {') + 1}:2: conversation 5 is not one ChatGPT exports: mapping: Invalid input: expected record, received array.`,
      );
      await refused(
        await writeZip(join(dir, 'other.zip'), { 'notes.txt': 'hello' }),
        'chatgpt',
        'other.zip: holds no conversations.json: is it the archive ChatGPT sends (Settings → Data controls → Export data)?',
      );
      await refused(
        dir,
        'chatgpt',
        `${dir.split('/').at(-1)}: is a folder: a folder is read as Markdown notes (--from markdown); other formats are files.`,
      );
    },
    SLOW,
  );

  it(
    'an Engram export whose last line is refused stores none of the lines before it',
    async () => {
      const file = join(dir, 'export.jsonl');
      writeFileSync(
        file,
        [
          { type: 'header', format: 'engram-export', version: 2, account: 'acc_x' },
          { type: 'container', id: 'ctr_x', name: 'Notes', description: '', created_at: 1, updated_at: 1 },
          {
            type: 'fact',
            id: 'mem_x',
            container: 'ctr_x',
            content: 'Fine.',
            title: null,
            static: false,
            created_at: 1,
            updated_at: 1,
            source: null,
            history: [],
          },
          {
            type: 'fact',
            id: 'mem_y',
            container: 'ctr_x',
            content: ' ',
            title: null,
            static: false,
            created_at: 1,
            updated_at: 1,
            source: null,
            history: [],
          },
        ]
          .map((l) => JSON.stringify(l))
          .join('\n'),
      );
      await refused(
        file,
        'engram',
        'export.jsonl:4:1: refused as the API refuses it: validation: content must not be empty.',
      );
    },
    SLOW,
  );
});

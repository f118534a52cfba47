/**
 * A broken source is refused whole, naming the file (inside an archive, the entry), line and
 * column of its first problem, and nothing of it is stored: no container, no document, no fact,
 * no learning queued; even when the problem is the last thing in it, after good ones.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { copyFixture, FIXTURES, workDir, world, type World, writeZip } from './import-kit';

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
    'ChatGPT: JSON cut short inside the archive, a conversation of the wrong shape after good ones, an archive without conversations',
    async () => {
      const good = fixture('chatgpt/conversations.json');
      const cut = good.slice(0, good.indexOf('"Λεμονόπιτα') + 40);
      await refused(
        await writeZip(join(dir, 'cut.zip'), { 'conversations.json': cut }),
        'chatgpt',
        `cut.zip/conversations.json:${end(cut)}: ends before its JSON does: the file is cut short.`,
      );
      const broken = good.replace('"update_time": 1718000100.0,', '"update_time": 1718000100.0,,');
      await refused(
        await writeZip(join(dir, 'broken.zip'), { 'conversations.json': broken }),
        'chatgpt',
        'broken.zip/conversations.json:104:33: not valid JSON: unexpected ",".',
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
      writeFileSync(join(dir, 'not.zip'), 'PK\x03\x04 but nothing after');
      const notZip = w.importing(join(dir, 'not.zip'), '--from', 'chatgpt');
      expect(notZip.code).toBe(1);
      expect(notZip.stderr).toContain('engram: not.zip: is not a zip archive that can be read:');
    },
    SLOW,
  );

  it(
    'Claude: an entry that is neither a conversation nor a project',
    async () => {
      const list = JSON.parse(fixture('claude/conversations.json'));
      list.push({ uuid: 'x', title: 'a bookmark' });
      const json = join(dir, 'claude.json');
      const text = JSON.stringify(list);
      writeFileSync(json, text);
      await refused(
        json,
        'claude',
        `claude.json:1:${Buffer.byteLength(text.slice(0, text.lastIndexOf('{"uuid":"x"'))) + 1}: entry 5 is neither a Claude conversation (it has no chat_messages) nor a project (no docs or prompt_template).`,
      );
    },
    SLOW,
  );

  it(
    'MCP memory: a line that is not JSON, and one that is neither entity nor relation',
    async () => {
      const lines = fixture('mcp-memory/memory.jsonl').split('\n');
      const file = join(dir, 'memory.jsonl');
      const unclosed = '{"type":"entity","name":"Ada","entityType":"person","observations":["ok"]';
      writeFileSync(file, [...lines.slice(0, 3), unclosed, ...lines.slice(3)].join('\n'));
      await refused(file, 'mcp-memory', `memory.jsonl:4:${unclosed.length + 1}: not valid JSON: it ends too early.`);
      writeFileSync(file, [...lines, '{"type":"observation","entityName":"Ada","contents":["x"]}'].join('\n'));
      await refused(
        file,
        'mcp-memory',
        `memory.jsonl:${lines.length + 1}:1: is not an entity or a relation of the MCP memory server: type: Invalid discriminator value. Expected 'entity' | 'relation'.`,
      );
    },
    SLOW,
  );

  it(
    'Markdown: front matter that is not YAML, in a nested note',
    async () => {
      const vault = copyFixture('markdown/Garden Vault', dir);
      mkdirSync(join(vault, 'Zebra'), { recursive: true });
      writeFileSync(join(vault, 'Zebra/broken.md'), '---\ntitle: Broken\ntags: [a, b\n---\nBody.\n');
      await refused(
        vault,
        'markdown',
        'Garden Vault/Zebra/broken.md:4:1: its front matter is not valid YAML: ' +
          'Flow sequence in block collection must be sufficiently indented and end with a ].',
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

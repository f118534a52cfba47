/**
 * The Claude reader (src/importers/claude.ts) as a unit: Claude's export archive, its
 * conversations.json and projects.json in, the items it yields out, and its refusals with where
 * they are. What an import then stores, moves and says is test/e2e/cli/import-claude.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openClaude } from '../../src/importers/claude';
import type { DocumentItem, ImportItem } from '../../src/importers/items';
import { FIXTURES, readItems, writeZip } from '../helpers/imports';
import { scratchDir } from '../helpers/scratch';

const CLAUDE = { name: 'Claude', description: 'Conversations imported from Claude.' };
const NOVEL = { name: 'Novel: The Lighthouse', description: 'Drafts and notes for my novel.' };
const OUTLINE = 'claude:c0ffee00-0000-4000-8000-000000000004';

const fixture = (name: string) => readFileSync(join(FIXTURES, 'claude', name), 'utf8');
const dir = scratchDir();

const documents = (items: ImportItem[]) => items.filter((i): i is DocumentItem => i.kind === 'document');
const byTitle = (items: ImportItem[]): Record<string, DocumentItem> =>
  Object.fromEntries(documents(items).map((d) => [d.title, d]));

/** Writes `content` as a file named `name` and reads it as the person would name it. */
async function read(name: string, content: string | unknown[]) {
  const path = join(scratchDir(), name);
  await Bun.write(path, typeof content === 'string' ? content : JSON.stringify(content));
  return readItems(openClaude(path, name, null));
}

/** The whole export as Claude sends it. */
const archive = () =>
  writeZip(join(scratchDir(), 'data-2025-06-02-10-00-00-batch-0000.zip'), {
    'conversations.json': fixture('conversations.json'),
    'projects.json': fixture('projects.json'),
    'users.json': fixture('users.json'),
  });

describe("Claude's export archive", () => {
  it("yields each project with its documents and instructions in a container of its own, then the conversations, a project's in its project", async () => {
    const items = await readItems(openClaude(await archive(), 'export.zip', null));
    expect(
      items.map((i) => (i.kind === 'document' ? [i.title, i.container.name] : i.kind === 'skipped' ? i.what : i.kind)),
    ).toEqual([
      ['Instructions of the project Novel: The Lighthouse', NOVEL.name],
      ['characters.md', NOVEL.name],
      ['setting.md', NOVEL.name],
      "Claude's starter project",
      ['Allotment soil test', 'Claude'],
      ['Über Zürich 🚲', 'Claude'],
      'empty conversation',
      ['Chapter two outline', NOVEL.name],
    ]);
    const docs = byTitle(items);
    expect(docs['characters.md']!.container).toEqual(NOVEL);
    // Read with its projects.json, a project's conversation says where it would have gone without: a copy there moves.
    expect(docs['Chapter two outline']).toMatchObject({
      customId: OUTLINE,
      fallback: CLAUDE,
      metadata: { project_uuid: 'p0000000-0000-4000-8000-000000000001' },
    });
    expect(docs['Allotment soil test']!.fallback).toBeUndefined();
    expect(items.every((i) => i.kind !== 'document' || i.at.file.startsWith('export.zip/'))).toBe(true);
  });

  it("makes a project's documents and instructions documents with its names in metadata; its starter project is left out", async () => {
    const docs = byTitle(await readItems(openClaude(await archive(), 'export.zip', null)));
    expect(docs['characters.md']).toMatchObject({
      customId: 'claude-project:p0000000-0000-4000-8000-000000000001/d0000000-0000-4000-8000-000000000001',
      global: true,
      createdAt: Date.parse('2025-05-20T08:10:00Z'),
      updatedAt: Date.parse('2025-06-01T10:10:00Z'),
      metadata: {
        source: 'claude',
        project: 'Novel: The Lighthouse',
        project_uuid: 'p0000000-0000-4000-8000-000000000001',
        updated_at: '2025-06-01T10:10:00.000Z',
        doc_uuid: 'd0000000-0000-4000-8000-000000000001',
      },
    });
    expect(docs['characters.md']!.content).toContain('Morwenna Trevail: lighthouse keeper');
    expect(docs['Instructions of the project Novel: The Lighthouse']).toMatchObject({
      content: "You are my editor. Keep Morwenna's voice terse and salt-worn.",
      customId: 'claude-project:p0000000-0000-4000-8000-000000000001/instructions',
      metadata: { instructions: true },
    });
    expect(Object.values(docs).some((d) => d.content.includes("Anthropic's guide"))).toBe(false);
  });

  it('refuses an archive without conversations.json', async () => {
    const zip = await writeZip(join(dir, 'other.zip'), { 'projects.json': fixture('projects.json') });
    const err = await openClaude(zip, 'other.zip', null).catch((e: Error) => e);
    expect((err as Error).message).toBe(
      'other.zip: holds no conversations.json: is it the archive Claude sends (Settings → Privacy → Export data)?',
    );
  });
});

describe("Claude's conversations.json", () => {
  it('makes a conversation its text blocks with speaker and time, attachments with their text and files named, no thinking', async () => {
    const docs = byTitle(await read('conversations.json', fixture('conversations.json')));
    expect(docs['Allotment soil test']!.content).toBe(
      [
        'Allotment soil test\nA Claude conversation, started 2025-03-02 09:00 UTC.',
        'User, 2025-03-02 09:00 UTC: Here is my soil report. What should I plant?\n[attachment: soil-report.txt]\npH 6.4, loamy, low in potassium, high in nitrogen.\n[file: allotment.jpg]',
        'Claude, 2025-03-02 09:01 UTC: With pH 6.4 and plenty of nitrogen, plant leafy greens: chard, kale and spinach. Add wood ash for potassium before the beans go in.',
      ].join('\n\n'),
    );
    expect(docs['Allotment soil test']).toMatchObject({
      container: CLAUDE,
      global: true,
      customId: 'claude:c0ffee00-0000-4000-8000-000000000001',
      metadata: { source: 'claude', messages: 2 },
    });
  });

  it('follows the branch kept to current_leaf_message_uuid: a retried answer on another branch is left out', async () => {
    const zurich = byTitle(await read('conversations.json', fixture('conversations.json')))['Über Zürich 🚲']!.content;
    expect(zurich).toContain('Claude, 2025-04-10 18:02 UTC: Folge der Route 3 über den Albispass');
    expect(zurich).toContain('User, 2025-04-10 18:30 UTC: Danke! 🚲');
    expect(zurich).not.toContain('gondola');
  });

  it('without a current leaf ends at the newest message; without parents takes the messages as listed', async () => {
    const root = '00000000-0000-4000-8000-000000000000';
    const message = (uuid: string, parent: string, at: string, text: string) => ({
      uuid,
      sender: uuid.startsWith('h') ? 'human' : 'assistant',
      text,
      created_at: at,
      parent_message_uuid: parent,
    });
    const [branched, listed] = documents(
      await read('conversations.json', [
        {
          uuid: 'branched',
          name: 'Branches',
          chat_messages: [
            message('h1', root, '2025-01-01T10:00:00Z', 'Which way?'),
            message('a-old', 'h1', '2025-01-01T10:01:00Z', 'Left, said first.'),
            message('a-new', 'h1', '2025-01-01T10:02:00Z', 'Right, said again.'),
          ],
        },
        {
          uuid: 'listed',
          name: 'Listed',
          chat_messages: [
            { sender: 'human', text: 'First.', created_at: '2025-01-01T10:00:00Z' },
            { sender: 'assistant', text: 'Second.', created_at: '2025-01-01T09:00:00Z' },
          ],
        },
      ]),
    );
    expect(branched!.content).toContain('Right, said again.');
    expect(branched!.content).not.toContain('Left, said first.');
    expect(listed!.content).toEndWith('User, 2025-01-01 10:00 UTC: First.\n\nClaude, 2025-01-01 09:00 UTC: Second.');
  });

  it('read alone, puts a project\'s conversation in "Claude" (its project is not known yet), or in the project it names', async () => {
    const alone = await read('conversations.json', fixture('conversations.json'));
    expect(byTitle(alone)['Chapter two outline']).toMatchObject({
      customId: OUTLINE,
      container: CLAUDE,
      fallback: undefined,
    });
    const named = JSON.parse(fixture('conversations.json'));
    named[3].project = { uuid: 'p0000000-0000-4000-8000-000000000001', name: 'Novel: The Lighthouse' };
    expect(byTitle(await read('conversations.json', named))['Chapter two outline']).toMatchObject({
      container: { name: 'Novel: The Lighthouse', description: 'A Claude project, imported.' },
      fallback: CLAUDE,
    });
  });

  it('reads projects.json alone too, told apart by what its entries hold', async () => {
    const items = await read('projects.json', fixture('projects.json'));
    expect(items.map((i) => (i.kind === 'document' ? i.title : i.kind))).toEqual([
      'Instructions of the project Novel: The Lighthouse',
      'characters.md',
      'setting.md',
      'skipped',
    ]);
  });

  it('yields an entry that is neither a conversation nor a project, and a conversation of the wrong shape, as invalid items naming where', async () => {
    const list = JSON.parse(fixture('conversations.json'));
    list.push({ uuid: 'x', title: 'a bookmark' });
    list.push({ uuid: '', chat_messages: [] });
    const text = JSON.stringify(list);
    const items = await read('claude.json', text);
    const column = (needle: string) => Buffer.byteLength(text.slice(0, text.lastIndexOf(needle))) + 1;
    expect(items.filter((i) => i.kind === 'invalid').map((i) => i.kind === 'invalid' && i.refusal.message)).toEqual([
      `claude.json:1:${column('{"uuid":"x"')}: entry 5 is neither a Claude conversation (it has no chat_messages) nor a project (no docs or prompt_template).`,
      `claude.json:1:${column('{"uuid":""')}: conversation 6 is not one Claude exports: uuid: Too small: expected string to have >=1 characters.`,
    ]);
  });
});

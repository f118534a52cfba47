/**
 * The ChatGPT reader (src/importers/chatgpt.ts) as a unit: ChatGPT's conversations.json and export
 * archive in, the items it yields out, and its refusals with where they are. What an import then
 * stores, and what the command says, is test/e2e/cli/import-chatgpt.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openChatGpt } from '../../src/importers/chatgpt';
import type { DocumentItem, ImportItem } from '../../src/importers/items';
import { FIXTURES, readItems, writeZip } from '../helpers/imports';
import { scratchDir } from '../helpers/scratch';

const CHATGPT = { name: 'ChatGPT', description: 'Conversations imported from ChatGPT.' };
const dir = scratchDir();

const fixtureText = () => readFileSync(join(FIXTURES, 'chatgpt/conversations.json'), 'utf8');
const fixture = () => JSON.parse(fixtureText()) as any[];

/** Writes `content` as a file named `name` and reads it as the person would name it (its file name). */
async function read(name: string, content: string | unknown[], into: typeof CHATGPT | null = null) {
  const path = join(scratchDir(), name);
  await Bun.write(path, typeof content === 'string' ? content : JSON.stringify(content));
  return readItems(openChatGpt(path, name, into));
}

const documents = (items: ImportItem[]) => items.filter((i): i is DocumentItem => i.kind === 'document');

/** The refusal reading `items` ends in: its message (position first) and details. */
async function refusalOf(items: Promise<unknown>): Promise<{ message: string; details: unknown }> {
  const err = await items.then(
    () => null,
    (e: { message: string; details: unknown }) => e,
  );
  if (!err) throw new Error('read without a refusal');
  return { message: err.message, details: err.details };
}

/** A conversation of plain messages in a line, the way ChatGPT writes one. */
function chat(
  id: string,
  messages: { role: string; text?: string; at?: number; content?: unknown; metadata?: object }[],
) {
  const mapping: Record<string, unknown> = { root: { id: 'root', message: null, parent: null, children: ['m0'] } };
  messages.forEach((m, i) => {
    mapping[`m${i}`] = {
      id: `m${i}`,
      parent: i ? `m${i - 1}` : 'root',
      children: i + 1 < messages.length ? [`m${i + 1}`] : [],
      message: {
        author: { role: m.role },
        create_time: m.at ?? null,
        content: m.content ?? { content_type: 'text', parts: [m.text] },
        metadata: m.metadata ?? {},
        recipient: 'all',
      },
    };
  });
  return { conversation_id: id, title: `Chat ${id}`, mapping, current_node: `m${messages.length - 1}` };
}

describe("ChatGPT's conversations.json", () => {
  it('yields one document per conversation into "ChatGPT", and the one with nothing said as skipped', async () => {
    const items = await read('conversations.json', fixtureText());
    expect(items.map((i) => i.kind)).toEqual(['document', 'document', 'skipped', 'document']);
    expect(items[2]).toEqual({
      kind: 'skipped',
      what: 'empty conversation',
      plural: 'empty conversations',
      at: { file: 'conversations.json', line: expect.any(Number), column: expect.any(Number) },
    });
    for (const doc of documents(items)) expect(doc).toMatchObject({ container: CHATGPT, global: true });
  });

  it('makes a conversation the kept branch, each message with its speaker and time, without tools, the system or hidden context', async () => {
    const [ferry] = documents(await read('conversations.json', fixtureText()));
    expect(ferry!.content).toBe(
      [
        'Ferry to Hydra\nA ChatGPT conversation, started 2024-06-01 10:00 UTC.',
        'User, 2024-06-01 10:01 UTC: [image: piraeus-port.jpg]\nWhich ferry goes from Piraeus to Hydra on Saturday morning? This is the port in the photo.',
        'ChatGPT, 2024-06-01 10:01 UTC: Take the Flying Dolphin hydrofoil from Piraeus at 8:00; it reaches Hydra in about two hours.\nBook a day ahead in summer.',
        'User, 2024-06-01 10:15 UTC: Thanks, I will book the 8:00 one.',
      ].join('\n\n'),
    );
    // The regenerated answer's first try, the tool call and its result, the custom instructions: none of it.
    for (const noise of ['zeppelin', 'search(', 'quokka', 'Be brief', 'Athens'])
      expect(ferry!.content).not.toContain(noise);
    expect(ferry).toMatchObject({
      customId: 'chatgpt:6a1f0c2e-0000-4000-8000-000000000001',
      title: 'Ferry to Hydra',
      createdAt: Date.parse('2024-06-01T10:00:00.123Z'),
      updatedAt: Date.parse('2024-06-01T10:15:00.500Z'),
      metadata: {
        source: 'chatgpt',
        conversation_id: '6a1f0c2e-0000-4000-8000-000000000001',
        created_at: '2024-06-01T10:00:00.123Z',
        updated_at: '2024-06-01T10:15:00.500Z',
        messages: 3,
        model: 'gpt-4o',
        attachments: ['piraeus-port.jpg'],
      },
    });
  });

  it('keeps unicode as written, marks an archived conversation, and without current_node follows the newest branch', async () => {
    const [, lemon, sourdough] = documents(await read('conversations.json', fixtureText()));
    expect(lemon!.title).toBe('Λεμονόπιτα 🍋 と抹茶');
    expect(lemon!.content).toContain(
      'User, 2024-06-10 06:13 UTC: Πώς φτιάχνω λεμονόπιτα με ματσά; 抹茶のケーキも好きです 🍋',
    );
    expect(lemon!.metadata.archived).toBe(true);
    expect(sourdough!.content).toContain('ChatGPT, 2023-11-14 22:13 UTC: It is hungry');
  });

  it('shows an entity of the 2026 export by its name, drops citation markup, keeps a rule from making a heading, and names the model that answered', async () => {
    const [doc] = documents(
      await readItems(openChatGpt(join(FIXTURES, 'chatgpt/conversations-2026.json'), 'conversations-2026.json', null)),
    );
    expect(doc!.content).toBe(
      [
        'Photos from iPhone to PC\nA ChatGPT conversation, started 2026-01-01 10:00 UTC.',
        'User, 2026-01-01 10:00 UTC: How do I get my iPhone photos onto my Windows laptop?',
        'ChatGPT, 2026-01-01 10:00 UTC: To move photos from an iPhone to Windows, install Apple Devices from the Microsoft Store.\nThen connect the phone with a cable and unlock it.',
        'ChatGPT, 2026-01-01 10:00 UTC (continued): ### If the phone is not seen\nTry another cable.\nRestart the Apple Mobile Device Service.',
      ].join('\n\n'),
    );
    expect(doc!.content).not.toMatch(/[\uE200-\uE202]|entity\[/);
    expect(doc!.metadata.model).toBe('gpt-5-2-thinking');
  });

  it('reads code, a voice message and an attachment named where it was sent; an entity in the older form is its name', async () => {
    const [doc] = documents(
      await read('conversations.json', [
        chat('c1', [
          { role: 'user', at: 1_700_000_000, text: 'I like \uE200entity\uE202Oslo\uE201 in May.' },
          {
            role: 'user',
            at: 1_700_000_060,
            content: {
              content_type: 'multimodal_text',
              parts: [{ content_type: 'audio_transcription', text: 'Said aloud.' }],
            },
            metadata: { attachments: [{ id: 'file-1', name: 'notes.pdf' }] },
          },
          { role: 'assistant', at: 1_700_000_120, content: { content_type: 'code', language: 'py', text: 'print(1)' } },
        ]),
      ]),
    );
    expect(doc!.content.split('\n\n').slice(1)).toEqual([
      'User, 2023-11-14 22:13 UTC: I like Oslo in May.',
      'User, 2023-11-14 22:14 UTC: Said aloud.\n[attachment: notes.pdf]',
      'ChatGPT, 2023-11-14 22:15 UTC: ```py\nprint(1)\n```',
    ]);
    expect(doc!.metadata.attachments).toEqual(['notes.pdf']);
  });

  it("without times of its own takes its messages', and without any the epoch, never the time of the import; untitled is said so", async () => {
    const timed = chat('c2', [{ role: 'user', at: 1_600_000_000, text: 'Hello.' }]);
    const untimed = { ...chat('c3', [{ role: 'user', text: 'Hello again.' }]), title: null };
    const [a, b] = documents(await read('conversations.json', [timed, untimed]));
    expect([a!.createdAt, a!.updatedAt]).toEqual([1_600_000_000_000, 1_600_000_000_000]);
    expect([b!.createdAt, b!.updatedAt, b!.title]).toEqual([0, 0, 'Untitled conversation']);
    expect(b!.content).toStartWith(
      'Untitled conversation\nA ChatGPT conversation, started 1970-01-01 00:00 UTC.\n\nUser: Hello again.',
    );
  });

  it('goes into the container the person named', async () => {
    const into = { name: 'Bakes', description: 'Mine.' };
    for (const doc of documents(await read('conversations.json', fixtureText(), into)))
      expect(doc.container).toEqual(into);
  });

  it('stores a conversation over 1 MiB in parts, each headed, numbered and within the limit', async () => {
    const words = 'starter flour water crumb crust oven proof fold '.repeat(2200); // ~100 KB a message
    const long = chat(
      'long-one',
      Array.from({ length: 14 }, (_, i) => ({
        role: i % 2 ? 'assistant' : 'user',
        at: 1_700_000_100 + i,
        text: `Bake ${i}: ${words}`,
      })),
    );
    const parts = documents(await read('conversations.json', [{ ...long, title: 'A very long bake' }]));
    expect(parts.map((d) => [d.customId, d.title, d.metadata.part, d.metadata.parts])).toEqual([
      ['chatgpt:long-one', 'A very long bake (part 1 of 2)', 1, 2],
      ['chatgpt:long-one#2', 'A very long bake (part 2 of 2)', 2, 2],
    ]);
    for (const [i, part] of parts.entries()) {
      expect(part.content).toStartWith(
        `A very long bake (part ${i + 1} of 2)\nA ChatGPT conversation, started 2023-11-14 22:15 UTC.\n\n`,
      );
      expect(Buffer.byteLength(part.content)).toBeLessThanOrEqual(1024 * 1024);
    }
    expect(parts.map((d) => d.content).join('')).toContain('Bake 13: starter');
  });
});

describe("ChatGPT's export archive", () => {
  const others = {
    'chat.html': '<html><body>the offline viewer</body></html>',
    'user.json': JSON.stringify({ id: 'user-1', email: 'sam@example.org' }),
    'file-Xb12PhotoOfPort-piraeus-port.jpg': new Uint8Array(4096).map((_, i) => (i * 31) % 256),
  };

  it('reads its conversations.json among its other files, at its top or in its one folder, naming the entry in positions', async () => {
    const top = await writeZip(join(dir, 'top.zip'), { ...others, 'conversations.json': fixtureText() });
    const items = await readItems(openChatGpt(top, 'top.zip', null));
    expect(documents(items).map((d) => d.title)).toEqual([
      'Ferry to Hydra',
      'Λεμονόπιτα 🍋 と抹茶',
      'Sourdough starter',
    ]);
    expect(documents(items)[0]!.at.file).toBe('top.zip/conversations.json');

    // An export unpacked and zipped again: one folder at the top; a conversations.json deeper down is someone else's.
    const folder = await writeZip(join(dir, 'folder.zip'), {
      'export/conversations.json': fixtureText(),
      'export/deeper/conversations.json': JSON.stringify([chat('other', [{ role: 'user', text: 'Not this.' }])]),
    });
    expect(documents(await readItems(openChatGpt(folder, 'folder.zip', null))).map((d) => d.title)).toEqual([
      'Ferry to Hydra',
      'Λεμονόπιτα 🍋 と抹茶',
      'Sourdough starter',
    ]);
  });

  it('refuses an archive without conversations.json, and a file that starts as a zip but is none', async () => {
    const other = await writeZip(join(dir, 'other.zip'), { 'notes.txt': 'hello' });
    expect(await refusalOf(openChatGpt(other, 'other.zip', null))).toEqual({
      message:
        'other.zip: holds no conversations.json: is it the archive ChatGPT sends (Settings → Data controls → Export data)?',
      details: { file: 'other.zip', line: null, column: null },
    });
    const notZip = join(dir, 'not.zip');
    await Bun.write(notZip, 'PK\x03\x04 but nothing after');
    expect((await refusalOf(openChatGpt(notZip, 'not.zip', null))).message).toStartWith(
      'not.zip: is not a zip archive that can be read:',
    );
  });
});

describe('a conversations.json that is not one ChatGPT writes', () => {
  /** "line:column" of the end of `text` (columns count bytes). */
  const end = (text: string) => {
    const lines = text.split('\n');
    return `${lines.length}:${Buffer.byteLength(lines.at(-1)!) + 1}`;
  };

  it('is refused where its JSON is cut short or broken, inside an archive naming the entry', async () => {
    const good = fixtureText();
    const cut = good.slice(0, good.indexOf('"Λεμονόπιτα') + 40);
    const cutZip = await writeZip(join(dir, 'cut.zip'), { 'conversations.json': cut });
    expect((await refusalOf(readItems(openChatGpt(cutZip, 'cut.zip', null)))).message).toBe(
      `cut.zip/conversations.json:${end(cut)}: ends before its JSON does: the file is cut short.`,
    );
    const broken = good.replace('"update_time": 1718000100.0,', '"update_time": 1718000100.0,,');
    expect(await refusalOf(read('conversations.json', broken))).toEqual({
      message: 'conversations.json:104:33: not valid JSON: unexpected ",".',
      details: { file: 'conversations.json', line: 104, column: 33 },
    });
  });

  it('is refused when it is no array, or empty', async () => {
    expect((await refusalOf(read('conversations.json', '{"title": "x"}'))).message).toBe(
      'conversations.json:1:1: expected a JSON array of conversations, found an object.',
    );
    expect((await refusalOf(read('conversations.json', ''))).message).toBe(
      'conversations.json: is empty: expected a JSON array of conversations.',
    );
  });

  it('yields a conversation of the wrong shape as an invalid item saying what and where, after the good ones', async () => {
    const list = fixture();
    list.push({ ...list[0], conversation_id: 'late', id: 'late', mapping: [] });
    list.push({ ...list[0], conversation_id: undefined, id: undefined });
    const text = JSON.stringify(list, null, 1);
    const items = await read('conversations.json', text);
    expect(items.map((i) => i.kind)).toEqual(['document', 'document', 'skipped', 'document', 'invalid', 'invalid']);
    // Pretty-printed with one space: each conversation starts a line with " {".
    const starts = text.split('\n').flatMap((l, i) => (l === ' {' ? [i + 1] : []));
    expect(items.slice(4).map((i) => i.kind === 'invalid' && i.refusal.message)).toEqual([
      `conversations.json:${starts[4]}:2: conversation 5 is not one ChatGPT exports: mapping: Invalid input: expected record, received array.`,
      `conversations.json:${starts[5]}:2: conversation 6 is not one ChatGPT exports: conversation_id: has neither conversation_id nor id.`,
    ]);
  });
});

/**
 * The Markdown reader (src/importers/markdown.ts) as a unit: a folder of notes, or a zip of one, in;
 * the documents it yields out, with their titles, times, tags, links, front matter and encodings;
 * what it leaves out or refuses, with where. What an import then stores (a changed note replacing
 * its document) is test/e2e/cli/import-markdown.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { DocumentItem, ImportItem } from '../../src/importers/items';
import { openMarkdown } from '../../src/importers/markdown';
import { FIXTURES, readItems, writeZip } from '../helpers/imports';
import { scratchDir } from '../helpers/scratch';

const VAULT = join(FIXTURES, 'markdown/Garden Vault');
const GARDEN = { name: 'Garden Vault', description: 'Notes imported from the folder Garden Vault.' };

const documents = (items: ImportItem[]) => items.filter((i): i is DocumentItem => i.kind === 'document');
const byId = (items: ImportItem[]) => Object.fromEntries(documents(items).map((d) => [d.customId, d]));

/** A folder named `name` holding `notes` (path → text or bytes), read as the person would name it. */
async function readNotes(name: string, notes: Record<string, string | Uint8Array>) {
  const folder = join(scratchDir(), name);
  for (const [path, content] of Object.entries(notes)) {
    mkdirSync(join(folder, path, '..'), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  return readItems(openMarkdown(folder, name, null));
}

/** The one document a folder of one note makes. */
const oneNote = async (content: string | Uint8Array, path = 'note.md') =>
  documents(await readNotes('Notes', { [path]: content }))[0]!;

describe('a folder of notes', () => {
  it('yields one document per note in a container named after the folder, by path; hidden folders and other files left out, an empty note skipped', async () => {
    const items = await readItems(openMarkdown(VAULT, 'Garden Vault', null));
    expect(items.map((i) => (i.kind === 'document' ? i.customId : i.kind === 'skipped' ? i.what : i.kind))).toEqual([
      'markdown:Home.md',
      'markdown:Journal/2024/März.md',
      'markdown:People/Ada Lovelace.md',
      'markdown:Projects/Raised beds.md',
      'empty note',
    ]);
    for (const doc of documents(items)) expect(doc.container).toEqual(GARDEN);
    expect(items[4]!.kind === 'skipped' && items[4]!.at).toEqual({ file: 'Garden Vault/empty.md' });
  });

  it('titles a note by its front matter, else its first heading, else its name; keeps front matter, tags and links in metadata, none from code', async () => {
    const docs = byId(await readItems(openMarkdown(VAULT, 'Garden Vault', null)));
    const home = docs['markdown:Home.md']!;
    expect(home.title).toBe('Garden home');
    expect(home.content).toStartWith('# Welcome\n\nThis vault tracks the allotment.');
    expect(home.metadata).toEqual({
      source: 'markdown',
      path: 'Home.md',
      front_matter: {
        title: 'Garden home',
        tags: ['garden', 'planning'],
        aliases: ['Start here'],
        created: '2024-02-01',
      },
      tags: ['garden', 'planning', 'compost', 'to-do'],
      links: ['Projects/Raised beds', 'People/Ada Lovelace'],
    });
    expect(docs['markdown:Projects/Raised beds.md']).toMatchObject({
      title: 'Raised beds',
      metadata: { tags: ['planting'], links: ['bed-plan.png'] },
    });
    // Front matter alone: searchable by it, titled by the file's name.
    const ada = docs['markdown:People/Ada Lovelace.md']!;
    expect([ada.title, ada.content]).toEqual(['Ada Lovelace', 'role: seed swap organiser\nphone: "+44 20 7946 0000"']);
  });

  it("dates a note by its front matter's created or date, else the file's last change", async () => {
    const docs = byId(await readItems(openMarkdown(VAULT, 'Garden Vault', null)));
    const modified = (path: string) => Math.round(statSync(join(VAULT, path)).mtimeMs);
    expect(docs['markdown:Home.md']).toMatchObject({
      createdAt: Date.parse('2024-02-01'),
      updatedAt: Math.max(Date.parse('2024-02-01'), modified('Home.md')),
    });
    const beds = docs['markdown:Projects/Raised beds.md']!;
    expect([beds.createdAt, beds.updatedAt]).toEqual([
      modified('Projects/Raised beds.md'),
      modified('Projects/Raised beds.md'),
    ]);
    expect((await oneNote('---\ndate: 2023-05-06T07:08:09Z\n---\nBody.')).createdAt).toBe(
      Date.parse('2023-05-06T07:08:09Z'),
    );
  });

  it('reads a note that is not UTF-8 in its encoding and says which: detected, or UTF-16 by its byte order mark', async () => {
    const march = byId(await readItems(openMarkdown(VAULT, 'Garden Vault', null)))['markdown:Journal/2024/März.md']!;
    expect(march.title).toBe('März');
    expect(march.content).toContain(
      'Café crème brûlée at the naïve façade café; the snowdrops were out. Zwölf Tulpenzwiebeln gesetzt.',
    );
    expect(march.metadata).toMatchObject({ path: 'Journal/2024/März.md', encoding: 'ISO-8859-1', tags: ['journal'] });

    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('# Grüße\n\nAus Köln.', 'utf16le')]);
    expect(await oneNote(utf16)).toMatchObject({
      title: 'Grüße',
      content: '# Grüße\n\nAus Köln.',
      metadata: { encoding: 'UTF-16LE' },
    });
    const bom = await oneNote(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('# Plain')]));
    expect([bom.content, bom.metadata.encoding]).toEqual(['# Plain', undefined]);
  });

  it('takes no tag or link from code, in a callout or nested quote as at the top level', async () => {
    const doc = await oneNote(
      [
        '# Colours #design',
        '',
        '> [!tip] The accent colour',
        '> ```css',
        '> .accent { color: #ff0000; } /* [[not a link]] */',
        '>',
        '> .muted { color: #aabbcc; }',
        '> ```',
        '',
        '> > ~~~',
        '> > #nested-code',
        '> > ~~~',
        '',
        'Used on the [[Home]] page. #palette and `#inline-code`, not #2024',
        '',
      ].join('\n'),
    );
    expect(doc.metadata).toMatchObject({ tags: ['design', 'palette'], links: ['Home'] });
  });

  it("takes the front matter's tags as a list or as words, and drops front matter too large for metadata, saying so", async () => {
    expect((await oneNote('---\ntags: "a, b c"\n---\nBody #d')).metadata.tags).toEqual(['a', 'b', 'c', 'd']);
    expect((await oneNote('---\ntag: [x]\n---\nBody')).metadata.tags).toEqual(['x']);
    const big = await oneNote(`---\nsummary: ${'s'.repeat(20_000)}\n---\nBody #kept`);
    expect(big.metadata).toEqual({
      source: 'markdown',
      path: 'note.md',
      tags: ['kept'],
      front_matter_omitted: 'too large for metadata',
    });
  });

  it('stores a note over 1 MiB in parts, each titled with its number', async () => {
    const parts = documents(
      await readNotes('Notes', { 'long.md': `# Long\n\n${'A line of the diary.\n'.repeat(70_000)}` }),
    );
    expect(parts.map((d) => [d.customId, d.title, d.metadata.part, d.metadata.parts])).toEqual([
      ['markdown:long.md', 'Long (part 1 of 2)', 1, 2],
      ['markdown:long.md#2', 'Long (part 2 of 2)', 2, 2],
    ]);
    for (const part of parts) expect(Buffer.byteLength(part.content)).toBeLessThanOrEqual(1024 * 1024);
  });
});

describe('a zip of a folder of notes', () => {
  /** The vault's files as zip entries, under `top/` when given. */
  function entries(top: string): Record<string, Uint8Array> {
    const found: Record<string, Uint8Array> = {};
    const walk = (at: string) => {
      for (const name of readdirSync(at)) {
        const path = join(at, name);
        if (statSync(path).isDirectory()) walk(path);
        else found[`${top}${relative(VAULT, path)}`] = readFileSync(path);
      }
    };
    walk(VAULT);
    return found;
  }

  it('holds the same notes: its one top folder names the container and is not part of their paths', async () => {
    const zip = await writeZip(join(scratchDir(), 'Garden Vault.zip'), entries('Garden Vault/'));
    const items = await readItems(openMarkdown(zip, 'Garden Vault.zip', null));
    const folder = await readItems(openMarkdown(VAULT, 'Garden Vault', null));
    expect(documents(items).map((d) => [d.customId, d.title, d.content, d.container])).toEqual(
      documents(folder).map((d) => [d.customId, d.title, d.content, d.container]),
    );
    expect(documents(items)[0]!.at).toEqual({ file: 'Garden Vault.zip/Garden Vault/Home.md' });
  });

  it('without one top folder is named after the archive', async () => {
    const zip = await writeZip(join(scratchDir(), 'Loose notes.zip'), entries(''));
    const [home] = documents(await readItems(openMarkdown(zip, 'Loose notes.zip', null)));
    expect([home!.customId, home!.container.name]).toEqual(['markdown:Home.md', 'Loose notes']);
  });
});

describe('what the reader refuses', () => {
  it('yields a note whose front matter is not valid YAML, or not a mapping, as an invalid item at its line and column', async () => {
    const items = await readNotes('Notes', {
      'broken.md': '---\ntitle: Broken\ntags: [a, b\n---\nBody.\n',
      'list.md': '---\n- a\n- b\n---\nBody.\n',
    });
    expect(items.map((i) => i.kind === 'invalid' && i.refusal.message)).toEqual([
      'Notes/broken.md:4:1: its front matter is not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ].',
      'Notes/list.md:2:1: its front matter is not a mapping of names to values.',
    ]);
  });

  it('yields a note over 16 MiB as an invalid item without reading it', async () => {
    const items = await readNotes('Notes', { 'huge.md': new Uint8Array(16 * 1024 * 1024 + 1).fill(97) });
    expect(items.map((i) => i.kind === 'invalid' && i.refusal.message)).toEqual([
      'Notes/huge.md: is larger than 16777216 bytes: too large for a note.',
    ]);
  });

  it('refuses a file that is neither a folder nor a zip of one', async () => {
    const file = join(scratchDir(), 'note.md');
    writeFileSync(file, '# Just one note');
    const err = await openMarkdown(file, 'note.md', null).catch((e: Error) => e);
    expect((err as Error).message).toBe('note.md: is neither a folder nor a zip archive of one.');
  });
});

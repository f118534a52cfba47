/**
 * `engram import --from markdown`, end to end: a folder of notes (front matter, wiki links and
 * tags, nested folders, a note in ISO-8859-1, a note of front matter alone, an empty note, a
 * hidden .obsidian folder and an image) goes in as one document per note, named by its path; a
 * search finds a note; a second import adds nothing; a note changed since replaces its document;
 * a zip of the same folder is the same notes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { call } from '../../helpers/server';
import { copyFixture, workDir, world, type World, writeZip } from './import-kit';

const SLOW = 60_000;
const dir = workDir('import-markdown');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('importing a folder of Markdown notes', () => {
  let w: World;
  let vault: string;
  beforeAll(async () => {
    w = await world();
    vault = copyFixture('markdown/Garden Vault', dir);
  });
  afterAll(() => w.server.close());

  it(
    'stores one document per note, titled and tagged, its front matter and links in metadata',
    async () => {
      const run = w.importing(vault, '--from', 'markdown');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 4 documents (0 already there), 0 facts, 0 rules.\nNothing to import in 1 empty note.\nInto "Garden Vault" (made now).',
      );
      const docs = Object.fromEntries((await w.documents()).map((d) => [d.custom_id, d]));
      expect(Object.keys(docs).sort()).toEqual([
        'markdown:Home.md',
        'markdown:Journal/2024/März.md',
        'markdown:People/Ada Lovelace.md',
        'markdown:Projects/Raised beds.md',
      ]);
      const home = docs['markdown:Home.md'];
      expect(home.title).toBe('Garden home');
      expect(home.content.startsWith('# Welcome\n\nThis vault tracks the allotment.')).toBe(true);
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
      expect(home.created_at).toBe('2024-02-01T00:00:00.000Z');
      expect(docs['markdown:Projects/Raised beds.md']).toMatchObject({
        title: 'Raised beds',
        metadata: { tags: ['planting'], links: ['bed-plan.png'] },
      });
      // Front matter alone: searchable by it, titled by the file's name.
      expect(docs['markdown:People/Ada Lovelace.md'].title).toBe('Ada Lovelace');
      expect(docs['markdown:People/Ada Lovelace.md'].content).toContain('role: seed swap organiser');
      // Not UTF-8: read as what it is, and said so.
      const march = docs['markdown:Journal/2024/März.md'];
      expect(march.title).toBe('März');
      expect(march.content).toContain(
        'Café crème brûlée at the naïve façade café; the snowdrops were out. Zwölf Tulpenzwiebeln gesetzt.',
      );
      expect(march.metadata).toMatchObject({ path: 'Journal/2024/März.md', encoding: 'ISO-8859-1', tags: ['journal'] });
    },
    SLOW,
  );

  it(
    'a search finds a note',
    async () => {
      await w.server.learning.drain();
      const [hit] = await w.search('snowdrops were out');
      expect(hit.content).toContain('Café crème brûlée');
      expect(hit.container_name).toBe('Garden Vault');
    },
    SLOW,
  );

  it(
    'a second import adds nothing; a changed note replaces its document, and nothing else moves',
    async () => {
      expect(w.importing(vault, '--from', 'markdown').stderr).toContain(
        'Imported 0 new containers, 0 documents (4 already there), 0 facts, 0 rules.',
      );
      expect(await w.server.learning.drain()).toBe(0);
      const before = Object.fromEntries((await w.documents()).map((d) => [d.custom_id, d.id]));
      writeFileSync(
        join(vault, 'Projects/Raised beds.md'),
        '# Raised beds\n\nA fourth bed went in by the shed; the garlic moved there. #planting\n',
      );
      const run = w.importing(vault, '--from', 'markdown');
      expect(run.stderr).toContain(
        'Imported 0 new containers, 0 documents (3 already there, 1 replaced by a changed version), 0 facts, 0 rules.',
      );
      const after = Object.fromEntries((await w.documents()).map((d) => [d.custom_id, d]));
      expect(Object.keys(after).sort()).toEqual(Object.keys(before).sort());
      expect(after['markdown:Projects/Raised beds.md'].content).toContain('A fourth bed went in by the shed');
      expect(after['markdown:Projects/Raised beds.md'].id).not.toBe(before['markdown:Projects/Raised beds.md']);
      expect(
        (await call(w.server, 'GET', `/v1/documents/${before['markdown:Projects/Raised beds.md']}`, w.key)).status,
      ).toBe(404);
      for (const id of ['markdown:Home.md', 'markdown:Journal/2024/März.md']) expect(after[id].id).toBe(before[id]);
      await w.server.learning.drain();
      expect((await w.search('fourth bed by the shed'))[0].content).toContain('A fourth bed went in by the shed');
      expect((await w.search('cedar beds topsoil')).some((h: any) => h.content.includes('Three cedar beds'))).toBe(
        false,
      );
    },
    SLOW,
  );

  it(
    'a zip of the folder holds the same notes',
    async () => {
      const entries: Record<string, Uint8Array> = {};
      const walk = (at: string) => {
        for (const name of readdirSync(at)) {
          const path = join(at, name);
          if (statSync(path).isDirectory()) walk(path);
          else entries[`Garden Vault/${relative(vault, path)}`] = readFileSync(path);
        }
      };
      walk(vault);
      const zip = await writeZip(join(dir, 'Garden Vault.zip'), entries);
      expect(w.importing(zip, '--from', 'markdown').stderr).toContain(
        'Imported 0 new containers, 0 documents (4 already there), 0 facts, 0 rules.\nNothing to import in 1 empty note.\nInto "Garden Vault".',
      );
    },
    SLOW,
  );
});

describe('a note with code inside a callout', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  it(
    'takes no tag or link from code, in a callout or nested quote as at the top level',
    async () => {
      const notes = join(dir, 'Palette');
      mkdirSync(notes, { recursive: true });
      writeFileSync(
        join(notes, 'Colours.md'),
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
          'Used on the [[Home]] page. #palette',
          '',
        ].join('\n'),
      );
      expect(w.importing(notes, '--from', 'markdown').code).toBe(0);
      const [doc] = await w.documents();
      expect(doc.metadata).toMatchObject({ tags: ['design', 'palette'], links: ['Home'] });
    },
    SLOW,
  );
});

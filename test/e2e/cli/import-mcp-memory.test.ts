/**
 * `engram import --from mcp-memory`, end to end: the MCP reference memory server's memory.jsonl
 * (entities with observations, one without, relations, unicode, a blank line) goes in as facts in a
 * container: each observation naming its entity and the entity's type, each relation both ends. A
 * search finds them; a second import adds nothing; an observation added since is added alone.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../../helpers/server';
import { FIXTURES, workDir, world, type World } from './import-kit';

const SLOW = 60_000;
const dir = workDir('import-mcp-memory');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const FILE = join(FIXTURES, 'mcp-memory/memory.jsonl');

describe("importing the MCP memory server's file", () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  it(
    'stores each observation and relation as a fact in "MCP memory"',
    async () => {
      const run = w.importing(FILE, '--from', 'mcp-memory');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 0 documents (0 already there), 6 facts, 0 rules.\n' +
          'Nothing to import in 1 entity without observations.\nInto "MCP memory" (made now).',
      );
      const [container] = await w.containers();
      expect(container.name).toBe('MCP memory');
      const facts = await w.server.services.store.facts.list(w.accountId);
      expect(facts.map((f) => [f.title, f.content, f.containerId, f.static])).toEqual([
        ['Ada_Lovelace', 'Ada_Lovelace (person): Wrote the first published algorithm', container.id, false],
        ['Ada_Lovelace', 'Ada_Lovelace (person): Prefers tea over coffee', container.id, false],
        ['Analytical_Engine', 'Analytical_Engine (machine): Designed by Charles Babbage in 1837', container.id, false],
        ['Zoë_Ørsted', 'Zoë_Ørsted (person): Spricht fließend Dänisch 🇩🇰', container.id, false],
        ['Ada_Lovelace', 'Ada_Lovelace wrote notes on Analytical_Engine', container.id, false],
        ['Ada_Lovelace', 'Ada_Lovelace lived in London', container.id, false],
      ]);
    },
    SLOW,
  );

  it(
    'a search finds a fact with the entity it is about',
    async () => {
      await w.server.learning.drain();
      expect((await w.search('prefers tea over coffee'))[0].content).toBe(
        'Ada_Lovelace (person): Prefers tea over coffee',
      );
      expect((await w.search('fließend Dänisch'))[0].content).toBe('Zoë_Ørsted (person): Spricht fließend Dänisch 🇩🇰');
    },
    SLOW,
  );

  it(
    'a second import adds nothing; an observation added to the file since is added alone',
    async () => {
      expect(w.importing(FILE, '--from', 'mcp-memory').stderr).toContain(
        'Imported 0 new containers, 0 documents (0 already there), 0 facts, 0 rules; skipped 6 facts already imported.',
      );
      const grown = readFileSync(FILE, 'utf8').replace(
        '"Prefers tea over coffee"',
        '"Prefers tea over coffee","Keeps bees in Kent"',
      );
      const later = join(dir, 'memory.jsonl');
      await Bun.write(later, grown);
      expect(w.importing(later, '--from', 'mcp-memory').stderr).toContain(
        'Imported 0 new containers, 0 documents (0 already there), 1 fact, 0 rules; skipped 6 facts already imported.',
      );
      expect((await w.server.services.store.facts.list(w.accountId)).map((f) => f.content)).toContain(
        'Ada_Lovelace (person): Keeps bees in Kent',
      );
    },
    SLOW,
  );
});

describe('a memory file the memory server wrote itself', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  it(
    'takes what the server writes: a relation with an empty end is left out and named, lines the file repeats are imported once and said to be repeats',
    async () => {
      const run = w.importing(join(FIXTURES, 'mcp-memory/written-by-the-server.jsonl'), '--from', 'mcp-memory');
      expect(run.code).toBe(0);
      expect(run.stderr).toContain(
        'Imported 1 new container, 0 documents (0 already there), 7 facts, 0 rules.\n' +
          '3 facts appear more than once in the file: each was imported once.\n' +
          'Into "MCP memory" (made now).\n' +
          'Left out 1 entry that could not be imported:\n' +
          '  written-by-the-server.jsonl:7:1: a relation with an empty "to", which the memory server accepts but which names nothing.\n',
      );
      expect(run.stderr).not.toContain('already imported');
      expect((await w.server.services.store.facts.list(w.accountId)).map((f) => f.content)).toEqual([
        'Obsidian (software): Stores notes as Markdown files in a vault',
        'Obsidian (software): Has a command palette opened with Ctrl+P',
        'Command palette (feature): Lists every command by name',
        'Hotkeys (feature): Can be changed in Settings',
        'Canvas: Lays notes out on an infinite board',
        'Hotkeys links to Command palette',
        'Obsidian includes Canvas',
      ]);
    },
    SLOW,
  );
});

describe('the profile after an import', () => {
  let w: World;
  beforeAll(async () => {
    w = await world();
  });
  afterAll(() => w.server.close());

  it(
    "keeps imported facts in their container: get_profile's recent facts are what the person said or saved since",
    async () => {
      const notes = (await call(w.server, 'POST', '/v1/containers', w.owner, { name: 'Notes' })).body.id;
      const said = await call(w.server, 'POST', '/v1/memories', w.key, {
        container: notes,
        content: 'Switched to a standing desk.',
      });
      expect(said.status).toBe(201);
      expect(w.importing(FILE, '--from', 'mcp-memory').code).toBe(0);
      const profile = await call(w.server, 'GET', '/v1/profile', w.key);
      expect(profile.status).toBe(200);
      expect(profile.body.dynamic.map((f: { content: string }) => f.content)).toEqual(['Switched to a standing desk.']);
      // The imported facts are in their container, found by search as before.
      expect((await w.search('prefers tea over coffee'))[0].container_name).toBe('MCP memory');
    },
    SLOW,
  );
});

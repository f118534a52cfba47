/**
 * The reader of the MCP memory server's file (src/importers/mcp-memory.ts) as a unit: memory.jsonl
 * in, the facts it yields out, and what it leaves out or refuses, with where. What an import then
 * stores and says (repeats counted, a second import) is test/e2e/cli/import-mcp-memory.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FactItem, ImportItem } from '../../src/importers/items';
import { openMcpMemory } from '../../src/importers/mcp-memory';
import { FIXTURES, readItems } from '../helpers/imports';
import { scratchDir } from '../helpers/scratch';

const MCP = { name: 'MCP memory', description: "Facts imported from the MCP memory server's knowledge graph." };
const FILE = join(FIXTURES, 'mcp-memory/memory.jsonl');

const facts = (items: ImportItem[]) => items.filter((i): i is FactItem => i.kind === 'fact');

/** Writes `lines` as memory.jsonl and reads it. */
async function read(lines: (string | object)[]) {
  const path = join(scratchDir(), 'memory.jsonl');
  await Bun.write(path, lines.map((l) => (typeof l === 'string' ? l : JSON.stringify(l))).join('\n'));
  return readItems(openMcpMemory(path, 'memory.jsonl', null));
}

describe("the memory server's file", () => {
  it('yields each observation as a fact naming its entity and its type, each relation as one naming both ends', async () => {
    const items = await readItems(openMcpMemory(FILE, 'memory.jsonl', null));
    expect(facts(items).map((f) => [f.title, f.content])).toEqual([
      ['Ada_Lovelace', 'Ada_Lovelace (person): Wrote the first published algorithm'],
      ['Ada_Lovelace', 'Ada_Lovelace (person): Prefers tea over coffee'],
      ['Analytical_Engine', 'Analytical_Engine (machine): Designed by Charles Babbage in 1837'],
      ['Zoë_Ørsted', 'Zoë_Ørsted (person): Spricht fließend Dänisch 🇩🇰'],
      ['Ada_Lovelace', 'Ada_Lovelace wrote notes on Analytical_Engine'],
      ['Ada_Lovelace', 'Ada_Lovelace lived in London'],
    ]);
    for (const fact of facts(items)) expect(fact.container).toEqual(MCP);
    // The blank line is passed over; positions are the file's lines.
    expect(facts(items).map((f) => f.at.line)).toEqual([1, 1, 2, 3, 6, 7]);
    expect(items.find((i) => i.kind === 'skipped')).toEqual({
      kind: 'skipped',
      what: 'entity without observations',
      plural: 'entities without observations',
      at: { file: 'memory.jsonl', line: 4, column: 1 },
    });
  });

  it('keys a fact by its words and its entity (the file has no ids), so the same fact is known again', async () => {
    const [observation, , , , relation] = facts(await readItems(openMcpMemory(FILE, 'memory.jsonl', null)));
    expect(observation!.key).toBe(JSON.stringify(['entity', 'Ada_Lovelace', 'Wrote the first published algorithm']));
    expect(relation!.key).toBe(JSON.stringify(['relation', 'Ada_Lovelace', 'wrote_notes_on', 'Analytical_Engine']));
  });

  it('takes what the server writes: an entity without a type, repeats as they are; a relation with an empty end is left out, named, on every import', async () => {
    const items = await readItems(
      openMcpMemory(join(FIXTURES, 'mcp-memory/written-by-the-server.jsonl'), 'written-by-the-server.jsonl', null),
    );
    expect(facts(items).map((f) => f.content)).toEqual([
      'Obsidian (software): Stores notes as Markdown files in a vault',
      'Obsidian (software): Has a command palette opened with Ctrl+P',
      'Command palette (feature): Lists every command by name',
      'Hotkeys (feature): Can be changed in Settings',
      'Obsidian (software): Stores notes as Markdown files in a vault',
      'Obsidian (software): Has a command palette opened with Ctrl+P',
      'Canvas: Lays notes out on an infinite board',
      'Hotkeys links to Command palette',
      'Hotkeys links to Command palette',
      'Obsidian includes Canvas',
    ]);
    const left = items.filter((i) => i.kind === 'invalid');
    expect(left).toEqual([
      {
        kind: 'invalid',
        always: true,
        refusal: expect.objectContaining({
          message:
            'written-by-the-server.jsonl:7:1: a relation with an empty "to", which the memory server accepts but which names nothing.',
        }),
      },
    ]);
  });

  it('leaves out an entity with an empty name and a relation with empty ends, naming each part', async () => {
    const items = await read([
      { type: 'entity', name: ' ', entityType: 'person', observations: ['x'] },
      { type: 'relation', from: '', to: 'B', relationType: ' ' },
    ]);
    expect(items.map((i) => i.kind === 'invalid' && [i.always, i.refusal.message])).toEqual([
      [
        true,
        'memory.jsonl:1:1: an entity with an empty name, which the memory server accepts but which names nothing.',
      ],
      [
        true,
        'memory.jsonl:2:1: a relation with an empty "from" and "relationType", which the memory server accepts but which names nothing.',
      ],
    ]);
  });

  it('trims observations and skips blank ones; reads Windows line ends; goes into the container the person named', async () => {
    const path = join(scratchDir(), 'memory.json');
    await Bun.write(
      path,
      `${JSON.stringify({ type: 'entity', name: 'Kim', entityType: 'person', observations: ['  Runs on Sundays  ', ' '] })}\r\n\r\n`,
    );
    const into = { name: 'People', description: '' };
    expect(facts(await readItems(openMcpMemory(path, 'memory.json', into)))).toEqual([
      {
        kind: 'fact',
        container: into,
        at: { file: 'memory.json', line: 1, column: 1 },
        title: 'Kim',
        key: JSON.stringify(['entity', 'Kim', 'Runs on Sundays']),
        content: 'Kim (person): Runs on Sundays',
      },
    ]);
  });
});

describe('a line that is not one the memory server writes', () => {
  it('refuses the file at a line that is not JSON, saying where it breaks', async () => {
    const lines = readFileSync(FILE, 'utf8').split('\n');
    const unclosed = '{"type":"entity","name":"Ada","entityType":"person","observations":["ok"]';
    const err = await read([...lines.slice(0, 3), unclosed, ...lines.slice(3)]).catch((e: Error) => e);
    expect((err as Error).message).toBe(`memory.jsonl:4:${unclosed.length + 1}: not valid JSON: it ends too early.`);
  });

  it('yields a line that is neither entity nor relation as an invalid item, which the import may skip', async () => {
    const items = await read([
      { type: 'observation', entityName: 'Ada', contents: ['x'] },
      { type: 'entity', name: 'Ada', entityType: 'person', observations: 'not a list' },
    ]);
    expect(items.map((i) => i.kind === 'invalid' && [i.always, i.refusal.message])).toEqual([
      [
        undefined,
        "memory.jsonl:1:1: is not an entity or a relation of the MCP memory server: type: Invalid discriminator value. Expected 'entity' | 'relation'.",
      ],
      [
        undefined,
        'memory.jsonl:2:1: is not an entity or a relation of the MCP memory server: observations: Invalid input: expected array, received string.',
      ],
    ]);
  });
});

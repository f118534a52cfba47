/**
 * The MCP reference memory server's file (`memory.jsonl`, or `memory.json` in older versions; the
 * same JSON Lines either way): one line per entity (`{"type":"entity","name","entityType",
 * "observations":[...]}`) or relation (`{"type":"relation","from","to","relationType"}`). Each
 * observation becomes a fact that names its entity and the entity's type ("Ada_Lovelace (person):
 * Wrote the first program"); each relation a fact naming both ends ("Ada_Lovelace works with
 * Charles_Babbage"). The file has no ids: a fact is known again by its words and its entity.
 */
import { z } from 'zod';
import { fileChunks } from './bytes';
import { type ContainerTarget, type ImportItem, type ImportReader, invalid, type OnRead, readCounter } from './items';
import { parseJsonText } from './json-array';
import { textLines } from './lines';
import { firstIssue } from './problem';
import { fitTitle } from './text-parts';

/** A line is one entity with its observations: this is room for thousands of them. */
const MAX_LINE_BYTES = 16 * 1024 * 1024;

// The shapes the server's own tools accept: any string, the empty one too (it writes what it is given).
const Entity = z.looseObject({
  type: z.literal('entity'),
  name: z.string(),
  entityType: z.string(),
  observations: z.array(z.string()),
});

const Relation = z.looseObject({
  type: z.literal('relation'),
  from: z.string(),
  to: z.string(),
  relationType: z.string(),
});

/** What a line the server wrote names nothing with, when it does: it is left out and listed. */
function emptyPart(line: z.infer<typeof Line>): string | null {
  if (line.type === 'entity') return line.name.trim() ? null : 'an entity with an empty name';
  const empty = (['from', 'to', 'relationType'] as const).filter((k) => !line[k].trim());
  if (!empty.length) return null;
  return `a relation with an empty ${empty.map((k) => `"${k}"`).join(' and ')}`;
}

const Line = z.discriminatedUnion('type', [Entity, Relation]);

/** Opens the memory server's file; `label` names it in messages. */
export function openMcpMemory(path: string, label: string, into: ContainerTarget | null): ImportReader {
  const container = into ?? {
    name: 'MCP memory',
    description: "Facts imported from the MCP memory server's knowledge graph.",
  };
  const total = Bun.file(path).size;
  return {
    async *items(onRead: OnRead): AsyncGenerator<ImportItem> {
      for await (const { text, number } of textLines(
        fileChunks(path, readCounter(onRead, total)),
        label,
        MAX_LINE_BYTES,
      )) {
        if (!text.trim()) continue;
        const at = { file: label, line: number, column: 1 };
        const parsed = Line.safeParse(parseJsonText(text, at));
        if (!parsed.success) {
          yield invalid(
            at,
            `is not an entity or a relation of the MCP memory server: ${firstIssue(parsed.error.issues)}.`,
          );
          continue;
        }
        const line = parsed.data;
        const empty = emptyPart(line);
        if (empty) {
          // The server's tools take it, so its file may hold it; it says nothing to import.
          yield { ...invalid(at, `${empty}, which the memory server accepts but which names nothing.`), always: true };
          continue;
        }
        if (line.type === 'entity') {
          const observations = line.observations.map((o) => o.trim()).filter(Boolean);
          if (!observations.length)
            yield { kind: 'skipped', what: 'entity without observations', plural: 'entities without observations', at };
          for (const observation of observations) {
            yield {
              kind: 'fact',
              container,
              at,
              title: fitTitle(line.name),
              key: JSON.stringify(['entity', line.name, observation]),
              content: line.entityType.trim()
                ? `${line.name} (${line.entityType}): ${observation}`
                : `${line.name}: ${observation}`,
            };
          }
        } else {
          // Relation types are written in active voice with underscores ("works_at"): read as words.
          yield {
            kind: 'fact',
            container,
            at,
            title: fitTitle(line.from),
            key: JSON.stringify(['relation', line.from, line.relationType, line.to]),
            content: `${line.from} ${line.relationType.replaceAll('_', ' ')} ${line.to}`,
          };
        }
      }
    },
    close() {},
  };
}

/**
 * Reading Engram's own export (`engram export` writes it; engram-format.ts holds its lines' shapes):
 * the header first, then each line checked against its version's shape as it is read.
 */
import { fileChunks } from './bytes';
import { EXPORT_FORMAT, type ExportLine, HeaderLine, READABLE_VERSIONS, SCHEMAS } from './engram-format';
import { type ImportItem, type ImportReader, invalid, type OnRead, readCounter } from './items';
import { parseJsonText } from './json-array';
import { textLines } from './lines';
import { firstIssue, refusal, type SourcePosition } from './problem';

/**
 * The longest line read: a document's 1 MiB of content escaped, or a page's passages, fit many
 * times over. It bounds memory.
 */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

/** The header: an Engram export of a version this engram reads, or a clear refusal. */
function readHeader(raw: Record<string, unknown>, at: SourcePosition): { version: number; source: string } {
  if (raw?.type !== 'header' || raw.format !== EXPORT_FORMAT) {
    throw refusal(at, 'this is not an Engram export: its first line is not an engram-export header.');
  }
  const version = raw.version;
  if (typeof version === 'string') {
    const meant = Number(version);
    throw refusal(
      at,
      `the header gives its version as the text ${JSON.stringify(version)}; it is a number: ` +
        (READABLE_VERSIONS.includes(meant)
          ? `write "version": ${meant}.`
          : `this engram reads versions ${READABLE_VERSIONS.join(' and ')}.`),
    );
  }
  if (typeof version !== 'number' || !READABLE_VERSIONS.includes(version)) {
    throw refusal(
      at,
      `this Engram export is of version ${String(version)}; this engram reads versions ${READABLE_VERSIONS.join(' and ')}. Import it with a newer engram.`,
    );
  }
  const header = HeaderLine.safeParse(raw);
  if (!header.success) throw refusal(at, `not a valid header: ${firstIssue(header.error.issues)}.`);
  return { version, source: header.data.account ?? '' };
}

/** Opens an export; `label` names it in messages. Each line is checked against its version's shape as it is read. */
export function openEngramExport(path: string, label: string): ImportReader {
  const total = Bun.file(path).size;
  let source = '';
  return {
    // The exporting account's id ('' for files that do not say).
    source: () => source,
    async *items(onRead: OnRead): AsyncGenerator<ImportItem> {
      let version: number | null = null;
      for await (const { text: line, number } of textLines(
        fileChunks(path, readCounter(onRead, total)),
        label,
        MAX_LINE_BYTES,
      )) {
        if (!line.trim()) continue;
        const at = { file: label, line: number, column: 1 };
        const raw = parseJsonText(line, at) as Record<string, unknown>;
        if (version === null) {
          ({ version, source } = readHeader(raw, at));
          continue;
        }
        if (raw?.type === 'header') throw refusal(at, 'a second header.');
        const schemas = SCHEMAS[version]!;
        // Own keys only: a line of type "constructor" is an unknown type, not Object.prototype's.
        const schema =
          typeof raw?.type === 'string' && Object.hasOwn(schemas, raw.type) ? schemas[raw.type] : undefined;
        const parsed = schema?.safeParse(raw);
        if (!parsed) yield invalid(at, 'a line of a type an export does not have.');
        else if (!parsed.success)
          yield invalid(at, `not a valid ${String(raw.type)} line: ${firstIssue(parsed.error.issues)}.`);
        else yield { kind: 'export-line', line: parsed.data as ExportLine, at };
      }
      if (version === null) throw refusal({ file: label }, 'the file is empty: it is not an Engram export.');
    },
    close() {},
  };
}

/** What an import did (or, dry, would do), counted, and the words the CLI and the Import page tell it in. */
import type { ImportedKind } from '../../storage/store';

export type ImportCounts = Record<ImportedKind, number>;

/** One thing an import adds, replaces or moves, told as the dry run finds it. */
export interface ImportChange {
  action: 'add' | 'replace' | 'move';
  kind: ImportedKind;
  /** Its title, name or words. */
  name: string;
  container: string | null;
}

const noCounts = (): ImportCounts => ({ container: 0, document: 0, fact: 0, rule: 0 });

export interface ImportSummary {
  /** The source's format (see src/importers/formats.ts). */
  format: string;
  /** Nothing was stored: these are what an import would do now. */
  dryRun: boolean;
  /** What the import added. */
  added: ImportCounts;
  /**
   * What was here already: a document whose custom_id the container holds with the same text, a
   * container of the same name, and what an export names by an id this account holds (its own).
   */
  alreadyThere: ImportCounts;
  /** Documents whose custom_id the container holds with other text (a note changed since): replaced by the new. */
  replaced: number;
  /**
   * Documents an earlier import put where the source now says they do not belong (a Claude project's
   * conversation imported without its projects.json, in "Claude"): moved to their place.
   */
  moved: number;
  /** What an earlier import of the same source (or an overlapping one) brought and is still here: not added again. */
  alreadyImported: ImportCounts;
  /** Facts whose source document the file did not hold: imported without a source. */
  unsourced: number;
  /** Facts the source holds more than once (the MCP memory server's file may): imported once. */
  repeated: number;
  /**
   * The entries left out, each with where it is and why ("memory.jsonl:12:1: ..."): those the person
   * asked to skip (`skip_invalid`) and those that name nothing (a relation with an empty end).
   */
  leftOut: string[];
  /** What the source holds with nothing to import: how many of each kind ("empty conversation"), with its plural. */
  skipped: Record<string, { count: number; plural: string }>;
  /** The containers it landed in, made or found, in the order first met. */
  containers: { id: string | null; name: string; made: boolean }[];
}

export const emptySummary = (format: string, dryRun: boolean): ImportSummary => ({
  format,
  dryRun,
  added: noCounts(),
  alreadyThere: noCounts(),
  replaced: 0,
  moved: 0,
  alreadyImported: noCounts(),
  unsourced: 0,
  repeated: 0,
  leftOut: [],
  skipped: {},
  containers: [],
});

/** "a", "a and b", "a, b and c". */
const listed = (parts: string[]): string =>
  parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

/** "1 fact", "2 facts". */
const count = (n: number, noun: string, plural = `${noun}s`): string => `${n} ${n === 1 ? noun : plural}`;

/** "2 documents and 40 facts" from the counts that are not zero; '' when all are. */
const counted = (counts: ImportCounts) =>
  listed(
    (['container', 'document', 'fact', 'rule'] as const)
      .filter((kind) => counts[kind] > 0)
      .map((kind) => count(counts[kind], kind)),
  );

/**
 * What the import tells the person it did, a sentence a line; then, when entries were left out,
 * each of them on a line of its own (see `leftOut`).
 */
export function describeImport(s: ImportSummary): string[] {
  const { added, alreadyThere } = s;
  const there = (n: number) => (n ? ` (${n} already there)` : '');
  const documents = [
    `${alreadyThere.document} already there`,
    ...(s.replaced ? [`${s.replaced} replaced by a changed version`] : []),
    ...(s.moved ? [`${s.moved} moved where the source now places ${s.moved === 1 ? 'it' : 'them'}`] : []),
  ].join(', ');
  const before = counted(s.alreadyImported);
  const lines = [
    `${s.dryRun ? 'Would import' : 'Imported'} ${count(added.container, 'new container')}, ${count(added.document, 'document')} (${documents}), ` +
      `${count(added.fact, 'fact')}${there(alreadyThere.fact)}, ${count(added.rule, 'rule')}${there(alreadyThere.rule)}` +
      `${before ? `; skipped ${before} already imported` : ''}.`,
  ];
  if (s.repeated)
    lines.push(
      `${s.repeated === 1 ? '1 fact appears' : `${s.repeated} facts appear`} more than once in the file: each was imported once.`,
    );
  if (s.unsourced)
    lines.push(
      `${count(s.unsourced, 'fact names', 'facts name')} a source document the file does not hold: imported without a source.`,
    );
  const skipped = Object.entries(s.skipped).map(([what, { count: n, plural }]) => count(n, what, plural));
  if (skipped.length) lines.push(`Nothing to import in ${listed(skipped)}.`);
  if (s.format !== 'engram' && s.containers.length) {
    lines.push(
      `Into ${listed(s.containers.map((c) => `"${c.name}"${c.made ? ` (${s.dryRun ? 'to be made' : 'made now'})` : ''}`))}.`,
    );
  }
  if (s.leftOut.length)
    lines.push(`Left out ${count(s.leftOut.length, 'entry', 'entries')} that could not be imported:`);
  return lines;
}

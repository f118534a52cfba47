/** What an import did (or, dry, would do), counted, and the words the CLI and the Import page tell it in. */
import type { ImportedKind } from '../storage/store';

export type ImportCounts = Record<ImportedKind, number>;

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
  /** What an earlier import of the same source (or an overlapping one) brought and is still here: not added again. */
  alreadyImported: ImportCounts;
  /** Facts whose source document the file did not hold: imported without a source. */
  unsourced: number;
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
  alreadyImported: noCounts(),
  unsourced: 0,
  skipped: {},
  containers: [],
});

/** "a", "a and b", "a, b and c". */
const listed = (parts: string[]): string =>
  parts.length <= 1 ? parts.join('') : `${parts.slice(0, -1).join(', ')} and ${parts.at(-1)}`;

/** "2 documents and 40 facts" from the counts that are not zero; '' when all are. */
const counted = (counts: ImportCounts) =>
  listed(
    (
      [
        ['container', 'containers'],
        ['document', 'documents'],
        ['fact', 'facts'],
        ['rule', 'rules'],
      ] as const
    )
      .filter(([kind]) => counts[kind] > 0)
      .map(([kind, noun]) => `${counts[kind]} ${noun}`),
  );

/** What the import tells the person it did, a sentence a line. */
export function describeImport(s: ImportSummary): string[] {
  const { added, alreadyThere } = s;
  const there = (n: number) => (n ? ` (${n} already there)` : '');
  const documents = [
    `${alreadyThere.document} already there`,
    ...(s.replaced ? [`${s.replaced} replaced by a changed version`] : []),
  ].join(', ');
  const before = counted(s.alreadyImported);
  const lines = [
    `${s.dryRun ? 'Would import' : 'Imported'} ${added.container} new containers, ${added.document} documents (${documents}), ` +
      `${added.fact} facts${there(alreadyThere.fact)}, ${added.rule} rules${there(alreadyThere.rule)}` +
      `${before ? `; skipped ${before} already imported` : ''}.`,
  ];
  if (s.unsourced)
    lines.push(
      `${s.unsourced} facts name a source document the file does not hold; they were imported without a source.`,
    );
  const skipped = Object.entries(s.skipped).map(
    ([what, { count, plural }]) => `${count} ${count === 1 ? what : plural}`,
  );
  if (skipped.length) lines.push(`Nothing to import in ${listed(skipped)}.`);
  if (s.format !== 'engram' && s.containers.length) {
    lines.push(
      `Into ${listed(s.containers.map((c) => `"${c.name}"${c.made ? ` (${s.dryRun ? 'to be made' : 'made now'})` : ''}`))}.`,
    );
  }
  return lines;
}

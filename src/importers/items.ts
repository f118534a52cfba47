/**
 * What every importer reads its source into, and what the import operation
 * (src/operations/import-export/import-memory.ts) checks and stores: documents and facts bound for a container,
 * the lines of an Engram export, and what a source holds that has nothing to import.
 */
import type { ExportLine } from './engram-format';
import { refusal, type SourcePosition, type SourceRefusal } from './problem';

/**
 * A container named by the source (a Claude project, a Markdown folder) or by the person: matched
 * by name, made when missing.
 */
export interface ContainerTarget {
  name: string;
  description: string;
}

/** A conversation, a note or a project document. Its custom_id names it in the source, so a second import finds it. */
export interface DocumentItem {
  kind: 'document';
  container: ContainerTarget;
  customId: string;
  title: string | null;
  content: string;
  metadata: Record<string, unknown>;
  createdAt: number;
  updatedAt: number;
  at: SourcePosition;
  /**
   * Whether `customId` names it in the whole account (a conversation's id), not only in its
   * container (a note's path in its folder): an earlier import of it is then found wherever it is.
   */
  global?: boolean;
  /**
   * Where it lands when the source does not say (a Claude project's conversation read without
   * projects.json: "Claude"), when that differs from `container`. A copy an earlier import put
   * there, not knowing better, moves to `container`.
   */
  fallback?: ContainerTarget;
}

/**
 * A fact bound for a container (an observation of the MCP memory server). `key` names it in the
 * source, for a second import.
 */
export interface FactItem {
  kind: 'fact';
  container: ContainerTarget;
  key: string;
  content: string;
  title: string | null;
  at: SourcePosition;
}

/**
 * Something the source holds with nothing in it to import (an empty conversation, an empty note),
 * counted in the summary.
 */
export interface SkippedItem {
  kind: 'skipped';
  /** What it is: "empty conversation", and its plural "empty conversations". */
  what: string;
  plural: string;
  at: SourcePosition;
}

/** A checked line of an Engram export (src/importers/engram.ts), stored by the rules of that format. */
export interface ExportLineItem {
  kind: 'export-line';
  line: ExportLine;
  at: SourcePosition;
}

/**
 * An entry of the source that cannot be imported (not one its product writes, or one the API would
 * refuse): the import refuses the whole source for it, unless the person asked to skip such entries
 * (`skip_invalid`); then it is left out and listed. `always`: an entry the product itself writes
 * but that names nothing (a relation with an empty end), left out and listed on every import.
 */
export interface InvalidItem {
  kind: 'invalid';
  /** What is wrong, and where. */
  refusal: SourceRefusal;
  always?: boolean;
}

/** An entry of a source that cannot be imported (see InvalidItem): a refusal the import may skip. */
export function invalid(at: SourcePosition, message: string): InvalidItem {
  return { kind: 'invalid', refusal: refusal(at, message) };
}

export type ImportItem = DocumentItem | FactItem | SkippedItem | ExportLineItem | InvalidItem;

/** How far a read of the source is: units (bytes, mostly) done of the total. */
export type OnRead = (done: number, total: number) => void;

/** Counts what is read towards `total` and tells `onRead` each time. */
export function readCounter(onRead: OnRead, total: number): (bytes: number) => void {
  let done = 0;
  return (bytes) => {
    done += bytes;
    onRead(done, total);
  };
}

/** A source opened by its format's importer: read whole as often as asked (once to check, once to store). */
export interface ImportReader {
  items(onRead: OnRead): AsyncIterable<ImportItem>;
  /** An Engram export's exporting account, known once its header is read: what an import remembers its things under. */
  source?(): string;
  close(): void;
}

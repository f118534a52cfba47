/** Import origins: what `engram import` made of each exported thing (docs/decisions.md, "Importing twice"). */

/** The kinds of exported things an import remembers. */
export type ImportedKind = 'container' | 'document' | 'fact' | 'rule';

/** The import_origins column that holds what each kind of exported thing became (its foreign key), in either engine's schema. */
export const ORIGIN_TARGET = {
  container: 'container_id',
  document: 'document_id',
  fact: 'memory_id',
  rule: 'rule_id',
} as const;

/** One exported thing an import brought in: named by its source and exported id, and what it became here. */
export interface ImportOrigin {
  accountId: string;
  /** The exporting account's id; '' for files older than that. */
  source: string;
  kind: ImportedKind;
  exportedId: string;
  /** The id of the container, document, fact or rule it became in this account. */
  localId: string;
  importedAt: number;
  /** What the imported file was called (null for imports older than the record of it). */
  file: string | null;
}

/** What brought a thing in: the import's source, its file and when. */
export type ImportOf = Pick<ImportOrigin, 'source' | 'file' | 'importedAt'>;

export interface ImportOriginRepository {
  /** What an earlier import made of the exported thing, while that is still there (a delete drops the record); null otherwise. */
  get(accountId: string, source: string, kind: ImportedKind, exportedId: string): Promise<string | null>;
  /** Records what an import made of an exported thing. */
  insert(origin: ImportOrigin): Promise<void>;
  /** The import that brought the container, document, fact or rule of this id, while it is here; null when none did. */
  of(accountId: string, kind: ImportedKind, localId: string): Promise<ImportOf | null>;
}

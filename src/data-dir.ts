/**
 * The folders Engram keeps in a data directory beside the store's own files (storage/sqlite/open.ts
 * names those): what each holds can always be made again, so none of it is in a backup.
 */

/** The search indexes' files (search/saved-indexes.ts), saved so that a start need not rebuild them. */
export const INDEX_DIR = 'vector-index';
/** The Import page's uploads while they are imported (web/import-runs.ts). */
export const IMPORTS_DIR = 'imports';

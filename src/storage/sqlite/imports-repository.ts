import { ORIGIN_TARGET, type ImportOriginRepository } from '../imports';
import type { SqliteContext, Synchronous } from './context';

// Hand-written SQL: called once a line of an import, where drizzle's query building costs more than the query.
export function importsRepository({ raw }: SqliteContext): Synchronous<ImportOriginRepository> {
  return {
    get: (accountId, source, kind, exportedId) =>
      raw
        .query<{ id: string }, [string, string, string, string]>(`
      SELECT coalesce(container_id, document_id, memory_id, rule_id) AS id FROM import_origins
       WHERE account_id = ? AND source = ? AND kind = ? AND exported_id = ?`)
        .get(accountId, source, kind, exportedId)?.id ?? null,

    insert(origin) {
      raw
        .query(
          `INSERT INTO import_origins (account_id, source, kind, exported_id, ${ORIGIN_TARGET[origin.kind]}, imported_at, file) VALUES (?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          origin.accountId,
          origin.source,
          origin.kind,
          origin.exportedId,
          origin.localId,
          origin.importedAt,
          origin.file,
        );
    },

    of: (accountId, kind, localId) =>
      raw
        .query<{ source: string; file: string | null; importedAt: number }, [string, string]>(`
      SELECT source, file, imported_at AS importedAt FROM import_origins
       WHERE ${ORIGIN_TARGET[kind]} = ? AND account_id = ?`)
        .get(localId, accountId) ?? null,
  };
}

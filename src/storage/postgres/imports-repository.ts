import { ORIGIN_TARGET, type ImportOriginRepository } from '../imports';
import type { PostgresContext } from './context';

export function importsRepository({ sql }: PostgresContext): ImportOriginRepository {
  return {
    get: async (accountId, source, kind, exportedId) =>
      (
        await sql`
      SELECT coalesce(container_id, document_id, memory_id, rule_id) AS id FROM import_origins
       WHERE account_id = ${accountId} AND source = ${source} AND kind = ${kind} AND exported_id = ${exportedId}`
      )[0]?.id ?? null,

    async insert(origin) {
      await sql`
        INSERT INTO import_origins (account_id, source, kind, exported_id, ${sql(ORIGIN_TARGET[origin.kind])}, imported_at, file)
        VALUES (${origin.accountId}, ${origin.source}, ${origin.kind}, ${origin.exportedId}, ${origin.localId}, ${origin.importedAt}, ${origin.file})`;
    },

    async of(accountId, kind, localId) {
      const [row] = await sql`
        SELECT source, file, imported_at FROM import_origins
         WHERE ${sql(ORIGIN_TARGET[kind])} = ${localId} AND account_id = ${accountId}`;
      return row ? { source: row.source, file: row.file, importedAt: Number(row.importedAt) } : null;
    },
  };
}

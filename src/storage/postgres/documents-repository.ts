import type { DocumentRepository, DocumentRow } from '../documents';
import { numbers, parsed, type PostgresContext } from './context';

/** A document as stored, without its `seq` (the order documents were stored in, which pages go by). */
function document(r: Record<string, unknown>): DocumentRow {
  const { seq: _, ...row } = numbers<DocumentRow & { seq: unknown }>(r, 'createdAt', 'updatedAt', 'learnedAt');
  return { ...row, metadata: parsed(row.metadata) };
}

const stored = (doc: DocumentRow) => ({
  ...doc,
  metadata: doc.metadata === null ? null : JSON.stringify(doc.metadata),
});

export function documentsRepository({ sql }: PostgresContext): DocumentRepository {
  return {
    async insert(doc) {
      const [inserted] = await sql`INSERT INTO documents ${sql(stored(doc))} ON CONFLICT DO NOTHING RETURNING *`;
      if (inserted) return { inserted: true, document: document(inserted) };
      // Another's insert of the same custom_id that this one waited on is committed: a new statement sees it.
      const [existing] =
        await sql`SELECT * FROM documents WHERE container_id = ${doc.containerId} AND custom_id = ${doc.customId}`;
      return { inserted: false, document: document(existing) };
    },

    get: async (accountId, id) => {
      const [row] = await sql`SELECT * FROM documents WHERE account_id = ${accountId} AND id = ${id}`;
      return row ? document(row) : null;
    },

    getByCustomId: async (accountId, containerId, customId) => {
      const [row] =
        await sql`SELECT * FROM documents WHERE account_id = ${accountId} AND container_id = ${containerId} AND custom_id = ${customId}`;
      return row ? document(row) : null;
    },

    async list(accountId, containerIds, limit, after) {
      if (containerIds.length === 0) return { documents: [], next: null };
      const rows = await sql`
        SELECT * FROM documents
         WHERE account_id = ${accountId} AND container_id = ANY(${containerIds}::text[])
           ${after ? sql`AND (created_at, seq) < (${after.createdAt}, ${after.seq})` : sql``}
         ORDER BY created_at DESC, seq DESC LIMIT ${limit + 1}`;
      const last = rows[limit - 1];
      return {
        documents: rows.slice(0, limit).map(document),
        next: rows.length > limit && last ? { createdAt: Number(last.createdAt), seq: Number(last.seq) } : null,
      };
    },

    async count(accountId, containerIds) {
      const [row] = await sql`
        SELECT count(*)::int AS n FROM documents WHERE account_id = ${accountId} AND container_id = ANY(${containerIds}::text[])`;
      return row.n;
    },

    async listInInsertOrder(accountId, afterSeq, limit) {
      const rows =
        await sql`SELECT * FROM documents WHERE account_id = ${accountId} AND seq > ${afterSeq} ORDER BY seq LIMIT ${limit}`;
      return { documents: rows.map(document), lastSeq: rows.length ? Number(rows.at(-1).seq) : null };
    },

    async markLearned(accountId, id, times) {
      await sql`UPDATE documents SET status = 'learned', error = NULL, learned_at = ${times.learnedAt}, updated_at = ${times.updatedAt}
                 WHERE account_id = ${accountId} AND id = ${id}`;
    },

    async markFailed(accountId, id, error, at) {
      await sql`UPDATE documents SET status = 'failed', error = ${error}, updated_at = ${at} WHERE account_id = ${accountId} AND id = ${id}`;
    },

    async delete(accountId, id) {
      await sql`DELETE FROM documents WHERE account_id = ${accountId} AND id = ${id}`;
    },

    async describe(accountId, ids, openingChars) {
      // A URL document's text is what it was read as: its passages.
      const rows: { id: string; bytes: string; opening: string }[] = await sql`
        SELECT d.id,
               coalesce(octet_length(d.content), (SELECT sum(octet_length(p.content)) FROM passages p WHERE p.document_id = d.id), 0) AS bytes,
               coalesce(substr(d.content, 1, ${openingChars}),
                        (SELECT substr(p.content, 1, ${openingChars}) FROM passages p WHERE p.document_id = d.id ORDER BY p.position LIMIT 1), '') AS opening
          FROM documents d WHERE d.account_id = ${accountId} AND d.id = ANY(${ids}::text[])`;
      return new Map(rows.map((r) => [r.id, { bytes: Number(r.bytes), opening: r.opening }]));
    },
  };
}

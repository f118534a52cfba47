import type { Fact, FactRepository } from '../facts';
import { numbers, type PostgresContext } from './context';

/** A fact as stored, without its `seq` (the order facts were stored in). */
export function fact(r: Record<string, unknown>): Fact {
  const { seq: _, ...row } = numbers<Fact & { seq: unknown }>(r, 'createdAt', 'updatedAt', 'reviewedAt');
  return row;
}

export function factsRepository({ sql, atomic }: PostgresContext): FactRepository {
  const get = async (accountId: string, id: string) => {
    const [row] = await sql`SELECT * FROM memories WHERE account_id = ${accountId} AND id = ${id}`;
    return row ? fact(row) : null;
  };

  return {
    async insert(memory, history = []) {
      await atomic(async (q) => {
        await q`INSERT INTO memories ${q(memory)}`;
        if (history.length)
          await q`INSERT INTO memory_history ${q(history.map((h) => ({ memoryId: memory.id, ...h })))}`;
        // A fact in a container is searchable at once, as a passage of its own.
        if (memory.containerId) {
          await q`INSERT INTO passages (account_id, container_id, memory_id, position, title, content)
                  VALUES (${memory.accountId}, ${memory.containerId}, ${memory.id}, 0, ${memory.title}, ${memory.content})`;
        }
      });
    },

    get,

    updateContent: (accountId, id, content, at, source) =>
      atomic(async (q) => {
        // Locked: two rewordings of one fact each keep the other's wording in the history.
        const [old] =
          await q`SELECT content, container_id FROM memories WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`;
        if (!old) return false;
        await q`INSERT INTO memory_history (memory_id, content, replaced_at) VALUES (${id}, ${old.content}, ${at})`;
        const from = source ? { sourceDocumentId: source.documentId, sourcePosition: source.position } : {};
        await q`UPDATE memories SET ${q({ content, updatedAt: at, ...from })} WHERE id = ${id}`;
        if (old.containerId) await q`UPDATE passages SET content = ${content} WHERE memory_id = ${id}`;
        return true;
      }),

    async listHistory(accountId, id) {
      return (
        await sql`
        SELECT h.content, h.replaced_at FROM memory_history h JOIN memories m ON m.id = h.memory_id
         WHERE m.account_id = ${accountId} AND h.memory_id = ${id} ORDER BY h.id`
      ).map((r: Record<string, unknown>) => numbers(r, 'replacedAt'));
    },

    listStatic: async (accountId) =>
      (
        await sql`SELECT * FROM memories WHERE account_id = ${accountId} AND static ORDER BY updated_at DESC, id DESC`
      ).map(fact),

    // seq breaks ties in insertion order: ids are random, so an export and its re-import would otherwise disagree.
    list: async (accountId) =>
      (await sql`SELECT * FROM memories WHERE account_id = ${accountId} ORDER BY created_at, seq`).map(fact),

    async listRecent(accountId, containerIds, limit, { after, exceptImportedFrom: except } = {}) {
      if (containerIds.length === 0) return [];
      return (
        await sql`
        SELECT * FROM memories m WHERE account_id = ${accountId} AND NOT static AND container_id = ANY(${containerIds}::text[])
           ${after ? sql`AND (updated_at, id) < (${after.updatedAt}, ${after.id})` : sql``}
           ${
             except?.length
               ? sql`AND NOT EXISTS (SELECT 1 FROM import_origins o WHERE o.memory_id = m.id AND o.source = ANY(${except}::text[]))
                     AND (m.source_document_id IS NULL OR NOT EXISTS (
                       SELECT 1 FROM import_origins o WHERE o.document_id = m.source_document_id AND o.source = ANY(${except}::text[])))`
               : sql``
           }
         ORDER BY updated_at DESC, id DESC LIMIT ${limit}`
      ).map(fact);
    },

    async count(accountId, containerIds) {
      const [row] = await sql`
        SELECT count(*)::int AS n FROM memories WHERE account_id = ${accountId} AND container_id = ANY(${containerIds}::text[])`;
      return row.n;
    },

    markReviewed: async (accountId, id, at) =>
      (await sql`UPDATE memories SET reviewed_at = ${at} WHERE account_id = ${accountId} AND id = ${id}`).count === 1,
  };
}

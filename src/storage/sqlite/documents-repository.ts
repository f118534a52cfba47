import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { DocumentRepository } from '../documents';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

const d = t.documents;
/** The rowid grows with each insert: it orders documents of the same millisecond in the order stored. */
const seq = sql<number>`${d}.rowid`;

export function documentsRepository({ db, raw, atomic }: SqliteContext): Synchronous<DocumentRepository> {
  const mine = (accountId: string, id: string) => and(eq(d.accountId, accountId), eq(d.id, id));
  return {
    insert: (doc) =>
      atomic(() => {
        const inserted = db.insert(d).values(doc).onConflictDoNothing().returning().get();
        if (inserted) return { inserted: true, document: inserted };
        const existing = db
          .select()
          .from(d)
          .where(and(eq(d.containerId, doc.containerId), eq(d.customId, doc.customId!)))
          .get()!;
        return { inserted: false, document: existing };
      }),

    get: (accountId, id) => db.select().from(d).where(mine(accountId, id)).get() ?? null,

    getByCustomId: (accountId, containerId, customId) =>
      db
        .select()
        .from(d)
        .where(and(eq(d.accountId, accountId), eq(d.containerId, containerId), eq(d.customId, customId)))
        .get() ?? null,

    list(accountId, containerIds, limit, after) {
      if (containerIds.length === 0) return { documents: [], next: null };
      const rows = db
        .select({ doc: d, seq })
        .from(d)
        .where(
          and(
            eq(d.accountId, accountId),
            inArray(d.containerId, containerIds),
            after
              ? or(lt(d.createdAt, after.createdAt), and(eq(d.createdAt, after.createdAt), lt(seq, after.seq)))
              : undefined,
          ),
        )
        .orderBy(desc(d.createdAt), desc(seq))
        .limit(limit + 1)
        .all();
      const last = rows[limit - 1];
      return {
        documents: rows.slice(0, limit).map((r) => r.doc),
        next: rows.length > limit && last ? { createdAt: last.doc.createdAt, seq: last.seq } : null,
      };
    },

    count: (accountId, containerIds) =>
      containerIds.length === 0
        ? 0
        : (db
            .select({ n: sql<number>`count(*)` })
            .from(d)
            .where(and(eq(d.accountId, accountId), inArray(d.containerId, containerIds)))
            .get()?.n ?? 0),

    listInInsertOrder(accountId, afterSeq, limit) {
      const rows = db
        .select({ doc: d, seq })
        .from(d)
        .where(and(eq(d.accountId, accountId), sql`${seq} > ${afterSeq}`))
        .orderBy(seq)
        .limit(limit)
        .all();
      return { documents: rows.map((r) => r.doc), lastSeq: rows.at(-1)?.seq ?? null };
    },

    markLearned(accountId, id, times) {
      db.update(d)
        .set({ status: 'learned', error: null, ...times })
        .where(mine(accountId, id))
        .run();
    },

    markFailed(accountId, id, error, at) {
      db.update(d).set({ status: 'failed', error, updatedAt: at }).where(mine(accountId, id)).run();
    },

    delete(accountId, id) {
      db.delete(d).where(mine(accountId, id)).run();
    },

    describe(accountId, ids, openingChars) {
      // A URL document's text is what it was read as: its passages.
      const rows = raw
        .query<{ id: string; bytes: number; opening: string }, [string, string, number]>(`
        SELECT d.id,
               coalesce(length(CAST(d.content AS BLOB)),
                        (SELECT sum(length(CAST(p.content AS BLOB))) FROM passages p WHERE p.document_id = d.id), 0) AS bytes,
               coalesce(substr(d.content, 1, ?3),
                        (SELECT substr(p.content, 1, ?3) FROM passages p WHERE p.document_id = d.id ORDER BY p.position LIMIT 1), '') AS opening
          FROM json_each(?2) ids JOIN documents d ON d.id = ids.value
         WHERE d.account_id = ?1`)
        .all(accountId, JSON.stringify(ids), openingChars);
      return new Map(rows.map((r) => [r.id, { bytes: r.bytes, opening: r.opening }]));
    },
  };
}

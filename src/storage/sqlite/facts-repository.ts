import { and, desc, eq, inArray, lt, or, sql } from 'drizzle-orm';
import type { FactRepository } from '../facts';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

const m = t.memories;

export function factsRepository({ db, atomic }: SqliteContext): Synchronous<FactRepository> {
  const mine = (accountId: string, id: string) => and(eq(m.accountId, accountId), eq(m.id, id));
  const get = (accountId: string, id: string) => db.select().from(m).where(mine(accountId, id)).get() ?? null;

  return {
    insert(memory, history = []) {
      atomic(() => {
        db.insert(m).values(memory).run();
        if (history.length)
          db.insert(t.memoryHistory)
            .values(history.map((h) => ({ memoryId: memory.id, ...h })))
            .run();
        // A fact in a container is searchable at once, as a passage of its own.
        if (memory.containerId) {
          db.insert(t.passages)
            .values({
              accountId: memory.accountId,
              containerId: memory.containerId,
              memoryId: memory.id,
              position: 0,
              title: memory.title,
              content: memory.content,
            })
            .run();
        }
      });
    },

    get,

    updateContent: (accountId, id, content, at, source) =>
      atomic(() => {
        const old = get(accountId, id);
        if (!old) return false;
        db.insert(t.memoryHistory).values({ memoryId: id, content: old.content, replacedAt: at }).run();
        const from = source ? { sourceDocumentId: source.documentId, sourcePosition: source.position } : {};
        db.update(m)
          .set({ content, updatedAt: at, ...from })
          .where(eq(m.id, id))
          .run();
        if (old.containerId) db.update(t.passages).set({ content }).where(eq(t.passages.memoryId, id)).run();
        return true;
      }),

    listHistory(accountId, id) {
      if (!get(accountId, id)) return [];
      return db
        .select({ content: t.memoryHistory.content, replacedAt: t.memoryHistory.replacedAt })
        .from(t.memoryHistory)
        .where(eq(t.memoryHistory.memoryId, id))
        .orderBy(t.memoryHistory.id)
        .all();
    },

    listStatic: (accountId) =>
      db
        .select()
        .from(m)
        .where(and(eq(m.accountId, accountId), eq(m.static, true)))
        .orderBy(desc(m.updatedAt), desc(m.id))
        .all(),

    // rowid breaks ties in insertion order: ids are random, so an export and its re-import would otherwise disagree.
    list: (accountId) => db.select().from(m).where(eq(m.accountId, accountId)).orderBy(m.createdAt, sql`rowid`).all(),

    listRecent(accountId, containerIds, limit, { after, exceptImportedFrom: except } = {}) {
      if (containerIds.length === 0) return [];
      const sources = except?.length
        ? sql.join(
            except.map((s) => sql`${s}`),
            sql`, `,
          )
        : null;
      return db
        .select()
        .from(m)
        .where(
          and(
            eq(m.accountId, accountId),
            eq(m.static, false),
            inArray(m.containerId, containerIds),
            after
              ? or(lt(m.updatedAt, after.updatedAt), and(eq(m.updatedAt, after.updatedAt), lt(m.id, after.id)))
              : undefined,
            sources
              ? sql`NOT EXISTS (SELECT 1 FROM import_origins o WHERE o.memory_id = ${m.id} AND o.source IN (${sources}))
                AND (${m.sourceDocumentId} IS NULL OR NOT EXISTS (
                  SELECT 1 FROM import_origins o WHERE o.document_id = ${m.sourceDocumentId} AND o.source IN (${sources})))`
              : undefined,
          ),
        )
        .orderBy(desc(m.updatedAt), desc(m.id))
        .limit(limit)
        .all();
    },

    count: (accountId, containerIds) =>
      containerIds.length === 0
        ? 0
        : (db
            .select({ n: sql<number>`count(*)` })
            .from(m)
            .where(and(eq(m.accountId, accountId), inArray(m.containerId, containerIds)))
            .get()?.n ?? 0),

    markReviewed: (accountId, id, at) =>
      db.update(m).set({ reviewedAt: at }).where(mine(accountId, id)).returning({ id: m.id }).all().length === 1,
  };
}

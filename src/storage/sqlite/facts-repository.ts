import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { FactRepository } from '../facts';
import type { SqliteContext } from './context';
import { enqueue } from './jobs-repository';
import * as t from './schema';

const m = t.memories;

export function factsRepository(ctx: SqliteContext): FactRepository {
  const { db, transaction } = ctx;
  const mine = (accountId: string, id: string) => and(eq(m.accountId, accountId), eq(m.id, id));
  const getFact = (accountId: string, id: string) => db.select().from(m).where(mine(accountId, id)).get() ?? null;

  return {
    insertFact(memory, history = []) {
      transaction(() => {
        db.insert(m).values(memory).run();
        if (history.length) db.insert(t.memoryHistory).values(history.map((h) => ({ memoryId: memory.id, ...h }))).run();
        // A fact in a container is searchable at once, as a passage of its own.
        if (memory.containerId) {
          db.insert(t.passages).values({
            accountId: memory.accountId, containerId: memory.containerId, memoryId: memory.id,
            position: 0, title: memory.title, content: memory.content,
          }).run();
          enqueue(ctx, memory.accountId, 'embed_memory', { memoryId: memory.id }, memory.createdAt);
        }
      });
    },

    getFact,

    updateFactContent: (accountId, id, content, at, source) => transaction(() => {
      const old = getFact(accountId, id);
      if (!old) return false;
      db.insert(t.memoryHistory).values({ memoryId: id, content: old.content, replacedAt: at }).run();
      const from = source ? { sourceDocumentId: source.documentId, sourcePosition: source.position } : {};
      db.update(m).set({ content, updatedAt: at, ...from }).where(eq(m.id, id)).run();
      if (old.containerId) {
        db.update(t.passages).set({ content }).where(eq(t.passages.memoryId, id)).run();
        enqueue(ctx, accountId, 'embed_memory', { memoryId: id }, at);
      }
      return true;
    }),

    listFactHistory(accountId, id) {
      if (!getFact(accountId, id)) return [];
      return db.select({ content: t.memoryHistory.content, replacedAt: t.memoryHistory.replacedAt }).from(t.memoryHistory)
        .where(eq(t.memoryHistory.memoryId, id)).orderBy(t.memoryHistory.id).all();
    },

    listStaticFacts: (accountId) => db.select().from(m).where(and(eq(m.accountId, accountId), eq(m.static, true)))
      .orderBy(desc(m.updatedAt), desc(m.id)).all(),

    // rowid breaks ties in insertion order: ids are random, so an export and its re-import would otherwise disagree.
    listFacts: (accountId) => db.select().from(m).where(eq(m.accountId, accountId)).orderBy(m.createdAt, sql`rowid`).all(),

    listRecentFacts(accountId, containerIds, limit) {
      if (containerIds.length === 0) return [];
      return db.select().from(m).where(and(eq(m.accountId, accountId), eq(m.static, false), inArray(m.containerId, containerIds)))
        .orderBy(desc(m.updatedAt), desc(m.id)).limit(limit).all();
    },

    markFactReviewed: (accountId, id, at) =>
      db.update(m).set({ reviewedAt: at }).where(mine(accountId, id)).returning({ id: m.id }).all().length === 1,
  };
}

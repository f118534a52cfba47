/** Forgetting: deletes across documents, passages and facts that leave neither rows nor bytes behind. */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { ContainerRepository } from '../containers';
import type { DocumentRepository } from '../documents';
import type { FactRepository } from '../facts';
import {
  factsGoneAndKept,
  type ForgetTarget,
  type ForgettingDone,
  type ForgettingPlan,
  type ForgettingRepository,
  type ForgettingScope,
  forgettingPlan,
} from '../forgetting';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

interface Neighbours {
  containers: Pick<Synchronous<ContainerRepository>, 'get' | 'delete'>;
  documents: Pick<Synchronous<DocumentRepository>, 'get' | 'delete'>;
  facts: Pick<Synchronous<FactRepository>, 'get'>;
}

export function forgettingRepository(
  { db, raw, atomic, afterCommit }: SqliteContext,
  store: Neighbours,
): Synchronous<ForgettingRepository> {
  /** The documents a forgetting deletes, and the container when it is one; null when the account has no such target. */
  function scopeOf(accountId: string, target: ForgetTarget): ForgettingScope | null {
    if ('documentId' in target)
      return store.documents.get(accountId, target.documentId)
        ? { documentIds: [target.documentId], containerId: null }
        : null;
    if (!store.containers.get(accountId, target.containerId)) return null;
    const ids = db
      .select({ id: t.documents.id })
      .from(t.documents)
      .where(and(eq(t.documents.accountId, accountId), eq(t.documents.containerId, target.containerId)))
      .all()
      .map((r) => r.id);
    return { documentIds: ids, containerId: target.containerId };
  }

  function planOf(accountId: string, { documentIds, containerId }: ForgettingScope): ForgettingPlan {
    const passages = raw
      .query<{ n: number }, [string]>(
        'SELECT count(*) AS n FROM json_each(?1) ids JOIN passages p ON p.document_id = ids.value',
      )
      .get(JSON.stringify(documentIds))!.n;
    // Learned from the documents, outside the deleted container (the profile, for a container).
    const learned = raw
      .query<{ id: string }, [string, string, string | null]>(`
      SELECT m.id FROM memories m JOIN json_each(?2) ids ON m.source_document_id = ids.value
       WHERE m.account_id = ?1 AND (?3 IS NULL OR m.container_id IS NOT ?3)
       ORDER BY m.created_at, m.rowid`)
      .all(accountId, JSON.stringify(documentIds), containerId)
      .map((r) => store.facts.get(accountId, r.id)!);
    const inside = containerId
      ? db
          .select()
          .from(t.memories)
          .where(and(eq(t.memories.accountId, accountId), eq(t.memories.containerId, containerId)))
          .orderBy(t.memories.createdAt, sql`rowid`)
          .all()
      : [];
    return forgettingPlan(documentIds.length, passages, inside, learned);
  }

  /**
   * Old frames of the WAL still hold what was deleted until it is checkpointed and truncated. Best
   * effort and without waiting: a reader in the middle of a snapshot makes it a no-op, and the
   * next forgetting (or a restart) tries again. Outside any transaction: see `afterCommit`.
   */
  function truncateWal(): void {
    const wait = raw.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()!.timeout;
    raw.run('PRAGMA busy_timeout = 0');
    try {
      raw.run('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // Busy: see above.
    } finally {
      raw.run(`PRAGMA busy_timeout = ${wait}`);
    }
  }

  return {
    plan(accountId, target) {
      const scope = scopeOf(accountId, target);
      return scope && planOf(accountId, scope);
    },

    forget(accountId, target, alsoForget) {
      const done = atomic((): ForgettingDone | null => {
        const scope = scopeOf(accountId, target);
        if (!scope) return null;
        const plan = planOf(accountId, scope);
        const { gone, kept } = factsGoneAndKept(plan, alsoForget);
        const passageIds = raw
          .query<{ id: number }, [string, string, string | null]>(`
          SELECT id FROM passages WHERE document_id IN (SELECT value FROM json_each(?1))
          UNION SELECT id FROM passages WHERE memory_id IN (SELECT value FROM json_each(?2))
          UNION SELECT id FROM passages WHERE container_id = ?3`)
          .all(JSON.stringify(scope.documentIds), JSON.stringify(gone), scope.containerId)
          .map((r) => r.id);
        // Passages, their vectors and FTS rows, history and jobs all follow by cascade and trigger.
        if (gone.length)
          db.delete(t.memories)
            .where(and(eq(t.memories.accountId, accountId), inArray(t.memories.id, gone)))
            .run();
        if (kept.length)
          db.update(t.memories).set({ sourceDocumentId: null }).where(inArray(t.memories.id, kept)).run();
        if ('containerId' in target) store.containers.delete(accountId, target.containerId);
        else store.documents.delete(accountId, target.documentId);
        return {
          documents: plan.documents,
          passages: plan.passages,
          facts: gone.length,
          kept: kept.length,
          passageIds,
        };
      });
      if (done) afterCommit(truncateWal);
      return done;
    },

    forgetFact(accountId, id) {
      const passageIds = atomic(() => {
        if (!store.facts.get(accountId, id)) return null;
        const ids = db
          .select({ id: t.passages.id })
          .from(t.passages)
          .where(eq(t.passages.memoryId, id))
          .all()
          .map((r) => r.id);
        db.delete(t.memories)
          .where(and(eq(t.memories.accountId, accountId), eq(t.memories.id, id)))
          .run();
        return ids;
      });
      if (passageIds) afterCommit(truncateWal);
      return passageIds;
    },
  };
}

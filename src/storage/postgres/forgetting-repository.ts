/**
 * Forgetting: deletes across documents, passages and facts, in one transaction. PostgreSQL keeps a
 * deleted row's bytes until VACUUM makes its space reusable, so each forgetting asks for one once it
 * commits (`scrub`, see postgres-store.ts and docs/decisions.md).
 */
import type { SQL } from 'bun';
import type { Fact } from '../facts';
import {
  factsGoneAndKept,
  type ForgetTarget,
  type ForgettingDone,
  type ForgettingPlan,
  type ForgettingRepository,
  type ForgettingScope,
  forgettingPlan,
} from '../forgetting';
import type { PostgresContext } from './context';
import { fact } from './facts-repository';

export function forgettingRepository(
  { sql, atomic, afterCommit }: PostgresContext,
  scrub: () => void,
): ForgettingRepository {
  /**
   * The documents a forgetting deletes, and the container when it is one; null when the account has
   * no such target. `lock` holds the target's row to the end of the transaction, so two forgettings
   * of it run one after the other (the second finds nothing).
   */
  async function scopeOf(
    q: SQL,
    accountId: string,
    target: ForgetTarget,
    lock: boolean,
  ): Promise<ForgettingScope | null> {
    const forUpdate = lock ? q`FOR UPDATE` : q``;
    if ('documentId' in target) {
      const [doc] =
        await q`SELECT id FROM documents WHERE account_id = ${accountId} AND id = ${target.documentId} ${forUpdate}`;
      return doc ? { documentIds: [target.documentId], containerId: null } : null;
    }
    const [container] =
      await q`SELECT id FROM containers WHERE account_id = ${accountId} AND id = ${target.containerId} ${forUpdate}`;
    if (!container) return null;
    const ids =
      await q`SELECT id FROM documents WHERE account_id = ${accountId} AND container_id = ${target.containerId}`;
    return { documentIds: ids.map((r: { id: string }) => r.id), containerId: target.containerId };
  }

  async function planOf(
    q: SQL,
    accountId: string,
    { documentIds, containerId }: ForgettingScope,
  ): Promise<ForgettingPlan> {
    const [{ n }] = await q`SELECT count(*) AS n FROM passages WHERE document_id = ANY(${documentIds}::text[])`;
    // Learned from the documents, outside the deleted container (the profile, for a container).
    const learned: Fact[] = (
      await q`
      SELECT * FROM memories
       WHERE account_id = ${accountId} AND source_document_id = ANY(${documentIds}::text[]) AND (${containerId}::text IS NULL OR container_id IS DISTINCT FROM ${containerId})
       ORDER BY created_at, seq`
    ).map(fact);
    const inside: Fact[] = containerId
      ? (
          await q`SELECT * FROM memories WHERE account_id = ${accountId} AND container_id = ${containerId} ORDER BY created_at, seq`
        ).map(fact)
      : [];
    return forgettingPlan(documentIds.length, Number(n), inside, learned);
  }

  return {
    async plan(accountId, target) {
      const scope = await scopeOf(sql, accountId, target, false);
      return scope && planOf(sql, accountId, scope);
    },

    async forget(accountId, target, alsoForget) {
      const done = await atomic(async (q): Promise<ForgettingDone | null> => {
        const scope = await scopeOf(q, accountId, target, true);
        if (!scope) return null;
        const plan = await planOf(q, accountId, scope);
        const { gone, kept } = factsGoneAndKept(plan, alsoForget);
        const passageIds = (
          await q`
          SELECT id FROM passages
           WHERE document_id = ANY(${scope.documentIds}::text[]) OR memory_id = ANY(${gone}::text[]) OR container_id = ${scope.containerId}`
        ).map((r: { id: string }) => Number(r.id));
        // Passages, their vectors, history and jobs all follow by cascade.
        if (gone.length) await q`DELETE FROM memories WHERE account_id = ${accountId} AND id = ANY(${gone}::text[])`;
        if (kept.length) await q`UPDATE memories SET source_document_id = NULL WHERE id = ANY(${kept}::text[])`;
        if ('containerId' in target)
          await q`DELETE FROM containers WHERE account_id = ${accountId} AND id = ${target.containerId}`;
        else await q`DELETE FROM documents WHERE account_id = ${accountId} AND id = ${target.documentId}`;
        return {
          documents: plan.documents,
          passages: plan.passages,
          facts: gone.length,
          kept: kept.length,
          passageIds,
        };
      });
      if (done) afterCommit(scrub);
      return done;
    },

    async forgetFact(accountId, id) {
      const passageIds = await atomic(async (q) => {
        const [held] = await q`SELECT id FROM memories WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`;
        if (!held) return null;
        const ids = (await q`SELECT id FROM passages WHERE memory_id = ${id}`).map((r: { id: string }) => Number(r.id));
        await q`DELETE FROM memories WHERE account_id = ${accountId} AND id = ${id}`;
        return ids;
      });
      if (passageIds) afterCommit(scrub);
      return passageIds;
    },
  };
}

import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Share, ShareRepository } from '../shares';
import type { SqliteContext, Synchronous } from './context';
import { groupBy } from '../group-by';
import * as t from './schema';

type ShareRow = typeof t.shares.$inferSelect;

export function sharesRepository({ db, atomic }: SqliteContext): Synchronous<ShareRepository> {
  /** The rows with their containers, read in one query for all of them. */
  function withContainers(rows: ShareRow[]): Share[] {
    if (rows.length === 0) return [];
    const links = db
      .select()
      .from(t.shareContainers)
      .where(
        inArray(
          t.shareContainers.shareId,
          rows.map((r) => r.id),
        ),
      )
      .orderBy(t.shareContainers.shareId, t.shareContainers.containerId)
      .all();
    const byShare = groupBy(links, (l) => l.shareId);
    return rows.map((row) => ({ ...row, containerIds: (byShare.get(row.id) ?? []).map((l) => l.containerId) }));
  }

  return {
    insert(share) {
      const { containerIds, ...row } = share;
      atomic(() => {
        db.insert(t.shares).values(row).run();
        if (containerIds.length) {
          db.insert(t.shareContainers)
            .values(containerIds.map((containerId) => ({ shareId: share.id, containerId })))
            .run();
        }
      });
    },

    getById(id) {
      const row = db.select().from(t.shares).where(eq(t.shares.id, id)).get();
      return row ? withContainers([row])[0]! : null;
    },

    list: (accountId) =>
      withContainers(
        db
          .select()
          .from(t.shares)
          .where(eq(t.shares.accountId, accountId))
          .orderBy(desc(t.shares.createdAt), desc(t.shares.id))
          .all(),
      ),

    revoke(accountId, id, at) {
      const row = db
        .select({ revokedAt: t.shares.revokedAt })
        .from(t.shares)
        .where(and(eq(t.shares.accountId, accountId), eq(t.shares.id, id)))
        .get();
      if (!row) return false;
      if (row.revokedAt == null) db.update(t.shares).set({ revokedAt: at }).where(eq(t.shares.id, id)).run();
      return true;
    },
  };
}

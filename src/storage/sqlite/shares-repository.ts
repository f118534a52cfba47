import { and, desc, eq } from 'drizzle-orm';
import type { Share, ShareRepository } from '../shares';
import type { SqliteContext, Synchronous } from './context';
import { withContainerIds } from './linked-containers';
import * as t from './schema';

type ShareRow = typeof t.shares.$inferSelect;

export function sharesRepository({ db, atomic }: SqliteContext): Synchronous<ShareRepository> {
  const withContainers = (rows: ShareRow[]): Share[] =>
    withContainerIds(db, rows, {
      table: t.shareContainers,
      owner: t.shareContainers.shareId,
      container: t.shareContainers.containerId,
    });

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

import { and, desc, eq, inArray } from 'drizzle-orm';
import type { Exposure, ExposureRepository } from '../exposures';
import type { SqliteContext } from './context';
import { groupBy } from './group-by';
import * as t from './schema';

type ExposureRow = typeof t.exposures.$inferSelect;

export function exposuresRepository({ db, transaction }: SqliteContext): ExposureRepository {
  /** The rows with their containers, read in one query for all of them. */
  function withContainers(rows: ExposureRow[]): Exposure[] {
    if (rows.length === 0) return [];
    const links = db.select().from(t.exposureContainers).where(inArray(t.exposureContainers.exposureId, rows.map((r) => r.id)))
      .orderBy(t.exposureContainers.exposureId, t.exposureContainers.containerId).all();
    const byExposure = groupBy(links, (l) => l.exposureId);
    return rows.map((row) => ({ ...row, containerIds: (byExposure.get(row.id) ?? []).map((l) => l.containerId) }));
  }

  return {
    insertExposure(exposure) {
      const { containerIds, ...row } = exposure;
      transaction(() => {
        db.insert(t.exposures).values(row).run();
        if (containerIds.length) {
          db.insert(t.exposureContainers).values(containerIds.map((containerId) => ({ exposureId: exposure.id, containerId }))).run();
        }
      });
    },

    getExposureById(id) {
      const row = db.select().from(t.exposures).where(eq(t.exposures.id, id)).get();
      return row ? withContainers([row])[0]! : null;
    },

    listExposures: (accountId) => withContainers(
      db.select().from(t.exposures).where(eq(t.exposures.accountId, accountId)).orderBy(desc(t.exposures.createdAt), desc(t.exposures.id)).all(),
    ),

    revokeExposure(accountId, id, at) {
      const row = db.select({ revokedAt: t.exposures.revokedAt }).from(t.exposures)
        .where(and(eq(t.exposures.accountId, accountId), eq(t.exposures.id, id))).get();
      if (!row) return false;
      if (row.revokedAt == null) db.update(t.exposures).set({ revokedAt: at }).where(eq(t.exposures.id, id)).run();
      return true;
    },
  };
}

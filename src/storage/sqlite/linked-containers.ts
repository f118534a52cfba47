/** Rows with the containers a link table ticks for each (a credential's, a share's), read in one query for all of them. */
import { inArray } from 'drizzle-orm';
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { groupBy } from '../group-by';

/** `links` holds a row's id in `owner` and a container's in `container`; each row's come in container order. */
export function withContainerIds<R extends { id: string }>(
  db: BunSQLiteDatabase,
  rows: R[],
  links: { table: SQLiteTable; owner: SQLiteColumn; container: SQLiteColumn },
): (R & { containerIds: string[] })[] {
  if (rows.length === 0) return [];
  const found = db
    .select({ owner: links.owner, containerId: links.container })
    .from(links.table)
    .where(
      inArray(
        links.owner,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(links.owner, links.container)
    .all() as { owner: string; containerId: string }[];
  const byOwner = groupBy(found, (l) => l.owner);
  return rows.map((row) => ({ ...row, containerIds: (byOwner.get(row.id) ?? []).map((l) => l.containerId) }));
}

import { and, eq, getTableColumns, sql } from 'drizzle-orm';
import { nameKey } from '../../names';
import type { ContainerRepository } from '../containers';
import { type SqliteContext, type Synchronous, uniqueChecked } from './context';
import * as t from './schema';

/** A container's columns but its compared name, which is how this store keeps names unique, not part of a container. */
const { nameKey: _, ...columns } = getTableColumns(t.containers);

export function containersRepository({ db, prepared }: SqliteContext): Synchronous<ContainerRepository> {
  const mine = (accountId: string, id: string) => and(eq(t.containers.accountId, accountId), eq(t.containers.id, id));
  // Every call with a key reads its account's containers: prepared once (context.ts). rowid after
  // created_at: containers made in the same millisecond stay oldest first.
  const listed = prepared(
    db
      .select(columns)
      .from(t.containers)
      .where(eq(t.containers.accountId, sql.placeholder('accountId')))
      .orderBy(t.containers.createdAt, sql`${t.containers}.rowid`)
      .prepare(),
  );
  return {
    list: (accountId) => listed.all({ accountId }),

    get: (accountId, id) => db.select(columns).from(t.containers).where(mine(accountId, id)).get() ?? null,

    getByName: (accountId, name) =>
      db
        .select(columns)
        .from(t.containers)
        .where(and(eq(t.containers.accountId, accountId), eq(t.containers.nameKey, nameKey(name))))
        .get() ?? null,

    insert(container) {
      uniqueChecked(() =>
        db
          .insert(t.containers)
          .values({
            ...container,
            learnsIntoProfile: container.learnsIntoProfile ?? true,
            nameKey: nameKey(container.name),
          })
          .run(),
      );
    },

    update(accountId, id, patch) {
      const named = patch.name === undefined ? patch : { ...patch, nameKey: nameKey(patch.name) };
      uniqueChecked(() => db.update(t.containers).set(named).where(mine(accountId, id)).run());
    },

    delete(accountId, id) {
      db.delete(t.containers).where(mine(accountId, id)).run();
    },
  };
}

import { and, eq, sql } from 'drizzle-orm';
import { nameKey } from '../../names';
import type { ContainerRepository } from '../containers';
import { type SqliteContext, uniqueChecked } from './context';
import * as t from './schema';

export function containersRepository({ db }: SqliteContext): ContainerRepository {
  const mine = (accountId: string, id: string) => and(eq(t.containers.accountId, accountId), eq(t.containers.id, id));
  return {
    // rowid after created_at: containers made in the same millisecond stay oldest first.
    listContainers: (accountId) => db.select().from(t.containers).where(eq(t.containers.accountId, accountId))
      .orderBy(t.containers.createdAt, sql`${t.containers}.rowid`).all(),

    getContainer: (accountId, id) => db.select().from(t.containers).where(mine(accountId, id)).get() ?? null,

    getContainerByName: (accountId, name) =>
      db.select().from(t.containers).where(and(eq(t.containers.accountId, accountId), eq(t.containers.nameKey, nameKey(name)))).get() ?? null,

    insertContainer(container) {
      uniqueChecked(() => db.insert(t.containers).values({ ...container, learnsIntoProfile: container.learnsIntoProfile ?? true, nameKey: nameKey(container.name) }).run());
    },

    updateContainer(accountId, id, patch) {
      const named = patch.name === undefined ? patch : { ...patch, nameKey: nameKey(patch.name) };
      uniqueChecked(() => db.update(t.containers).set(named).where(mine(accountId, id)).run());
    },

    deleteContainer(accountId, id) {
      db.delete(t.containers).where(mine(accountId, id)).run();
    },
  };
}

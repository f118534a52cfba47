import { and, eq, sql } from 'drizzle-orm';
import type { ContainerRepository } from '../containers';
import { type SqliteContext, type Synchronous, uniqueChecked } from './context';
import * as t from './schema';

export function containersRepository({ db }: SqliteContext): Synchronous<ContainerRepository> {
  const mine = (accountId: string, id: string) => and(eq(t.containers.accountId, accountId), eq(t.containers.id, id));
  return {
    // rowid after created_at: containers made in the same millisecond stay oldest first.
    list: (accountId) => db.select().from(t.containers).where(eq(t.containers.accountId, accountId))
      .orderBy(t.containers.createdAt, sql`${t.containers}.rowid`).all(),

    get: (accountId, id) => db.select().from(t.containers).where(mine(accountId, id)).get() ?? null,

    getByName: (accountId, name) =>
      db.select().from(t.containers).where(and(eq(t.containers.accountId, accountId), eq(t.containers.name, name))).get() ?? null,

    insert(container) {
      uniqueChecked(() => db.insert(t.containers).values(container).run());
    },

    update(accountId, id, patch) {
      uniqueChecked(() => db.update(t.containers).set(patch).where(mine(accountId, id)).run());
    },

    delete(accountId, id) {
      db.delete(t.containers).where(mine(accountId, id)).run();
    },
  };
}

import { eq, sql } from 'drizzle-orm';
import type { AccountRepository, SessionRepository } from '../accounts';
import { type SqliteContext, type Synchronous, uniqueChecked } from './context';
import * as t from './schema';

export function accountsRepository({ db }: SqliteContext): Synchronous<AccountRepository> {
  return {
    count: () => db.select({ n: sql<number>`count(*)` }).from(t.accounts).get()!.n,

    list: () => db.select().from(t.accounts).orderBy(t.accounts.createdAt).all(),

    get: (id) => db.select().from(t.accounts).where(eq(t.accounts.id, id)).get() ?? null,

    insert(account) {
      uniqueChecked(() => db.insert(t.accounts).values(account).run());
    },

    getByEmail: (email) =>
      db.select().from(t.accounts).where(sql`${t.accounts.email} = ${email} COLLATE NOCASE`).get() ?? null,
  };
}

export function sessionsRepository({ db }: SqliteContext): Synchronous<SessionRepository> {
  return {
    insert(session) {
      db.insert(t.sessions).values(session).run();
    },

    get: (id) => db.select().from(t.sessions).where(eq(t.sessions.id, id)).get() ?? null,

    delete(id) {
      db.delete(t.sessions).where(eq(t.sessions.id, id)).run();
    },
  };
}

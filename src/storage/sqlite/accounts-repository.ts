import { eq, sql } from 'drizzle-orm';
import type { AccountRepository } from '../accounts';
import { type SqliteContext, uniqueChecked } from './context';
import * as t from './schema';

export function accountsRepository({ db }: SqliteContext): AccountRepository {
  return {
    countAccounts: () => db.select({ n: sql<number>`count(*)` }).from(t.accounts).get()!.n,

    listAccounts: () => db.select().from(t.accounts).orderBy(t.accounts.createdAt).all(),

    getAccount: (id) => db.select().from(t.accounts).where(eq(t.accounts.id, id)).get() ?? null,

    insertAccount(account) {
      uniqueChecked(() => db.insert(t.accounts).values(account).run());
    },

    getAccountByEmail: (email) => db.select().from(t.accounts).where(sql`${t.accounts.email} = ${email} COLLATE NOCASE`).get() ?? null,

    insertSession(session) {
      db.insert(t.sessions).values(session).run();
    },

    getSession: (id) => db.select().from(t.sessions).where(eq(t.sessions.id, id)).get() ?? null,

    deleteSession(id) {
      db.delete(t.sessions).where(eq(t.sessions.id, id)).run();
    },
  };
}

import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { RuleRepository } from '../rules';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

export function rulesRepository({ db }: SqliteContext): Synchronous<RuleRepository> {
  const mine = (accountId: string, id: string) => and(eq(t.rules.accountId, accountId), eq(t.rules.id, id));
  return {
    list: (accountId, credentialId) =>
      db
        .select()
        .from(t.rules)
        .where(
          and(
            eq(t.rules.accountId, accountId),
            credentialId ? or(isNull(t.rules.credentialId), eq(t.rules.credentialId, credentialId)) : undefined,
          ),
        )
        .orderBy(t.rules.createdAt, sql`${t.rules}.rowid`)
        .all(), // rowid: rules of one millisecond in the order made

    insert(rule) {
      db.insert(t.rules).values(rule).run();
    },

    get: (accountId, id) => db.select().from(t.rules).where(mine(accountId, id)).get() ?? null,

    delete(accountId, id) {
      db.delete(t.rules).where(mine(accountId, id)).run();
    },
  };
}

import { and, eq, isNull, or, sql } from 'drizzle-orm';
import type { RuleRepository } from '../rules';
import type { SqliteContext } from './context';
import * as t from './schema';

export function rulesRepository({ db }: SqliteContext): RuleRepository {
  const mine = (accountId: string, id: string) => and(eq(t.rules.accountId, accountId), eq(t.rules.id, id));
  return {
    listRules: (accountId, credentialId) => db.select().from(t.rules).where(and(
      eq(t.rules.accountId, accountId),
      credentialId ? or(isNull(t.rules.credentialId), eq(t.rules.credentialId, credentialId)) : undefined,
    )).orderBy(t.rules.createdAt, sql`${t.rules}.rowid`).all(), // rowid: rules of one millisecond in the order made

    insertRule(rule) {
      db.insert(t.rules).values(rule).run();
    },

    getRule: (accountId, id) => db.select().from(t.rules).where(mine(accountId, id)).get() ?? null,

    deleteRule(accountId, id) {
      db.delete(t.rules).where(mine(accountId, id)).run();
    },
  };
}

import { and, eq, gt } from 'drizzle-orm';
import type { IdempotencyRepository } from '../idempotency';
import type { SqliteContext, Synchronous } from './context';
import { idempotencyKeys as k } from './schema';

export function idempotencyRepository({ db, raw }: SqliteContext): Synchronous<IdempotencyRepository> {
  const named = (accountId: string, credentialId: string, key: string) =>
    and(eq(k.accountId, accountId), eq(k.credentialId, credentialId), eq(k.key, key));
  return {
    hold: () => {},

    get: (accountId, credentialId, key, now) =>
      db
        .select()
        .from(k)
        .where(and(named(accountId, credentialId, key), gt(k.expiresAt, now)))
        .get() ?? null,

    put(record) {
      const { accountId: _a, credentialId: _c, key: _k, ...changes } = record;
      db.insert(k)
        .values(record)
        .onConflictDoUpdate({ target: [k.accountId, k.credentialId, k.key], set: changes })
        .run();
    },

    delete(accountId, credentialId, key) {
      db.delete(k)
        .where(named(accountId, credentialId, key))
        .run();
    },

    deleteExpired: (now) => raw.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [now]).changes,

    interruptPending: () =>
      raw.run("UPDATE idempotency_keys SET state = 'interrupted' WHERE state = 'pending'").changes,
  };
}

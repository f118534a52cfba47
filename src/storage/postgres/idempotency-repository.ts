import type { IdempotencyRecord, IdempotencyRepository } from '../idempotency';
import { numbers, type PostgresContext } from './context';

export function idempotencyRepository({ sql }: PostgresContext): IdempotencyRepository {
  return {
    async hold(accountId, credentialId, key) {
      await sql`SELECT pg_advisory_xact_lock(hashtext(${`engram_idempotency:${accountId}:${credentialId}:${key}`}))`;
    },

    get: async (accountId, credentialId, key, now) => {
      const [row] = await sql`
        SELECT * FROM idempotency_keys WHERE account_id = ${accountId} AND credential_id = ${credentialId} AND key = ${key} AND expires_at > ${now}`;
      return row ? numbers<IdempotencyRecord>(row, 'createdAt', 'expiresAt') : null;
    },

    async put(record) {
      const { accountId: _a, credentialId: _c, key: _k, ...changes } = record;
      await sql`INSERT INTO idempotency_keys ${sql(record)} ON CONFLICT (account_id, credential_id, key) DO UPDATE SET ${sql(changes)}`;
    },

    async delete(accountId, credentialId, key) {
      await sql`DELETE FROM idempotency_keys WHERE account_id = ${accountId} AND credential_id = ${credentialId} AND key = ${key}`;
    },

    deleteExpired: async (now) => (await sql`DELETE FROM idempotency_keys WHERE expires_at <= ${now}`).count,

    interruptPending: async () =>
      (await sql`UPDATE idempotency_keys SET state = 'interrupted' WHERE state = 'pending'`).count,
  };
}

import type { Rule, RuleRepository } from '../rules';
import { numbers, type PostgresContext } from './context';

const COLUMNS = 'id, account_id, credential_id, text, created_at';
const rule = (r: Record<string, unknown>) => numbers<Rule>(r, 'createdAt');

export function rulesRepository({ sql }: PostgresContext): RuleRepository {
  return {
    // seq: rules of one millisecond in the order made.
    list: async (accountId, credentialId) =>
      (
        await sql`
      SELECT ${sql.unsafe(COLUMNS)} FROM rules
       WHERE account_id = ${accountId} ${credentialId ? sql`AND (credential_id IS NULL OR credential_id = ${credentialId})` : sql``}
       ORDER BY created_at, seq`
      ).map(rule),

    async insert(r) {
      await sql`INSERT INTO rules ${sql(r)}`;
    },

    get: async (accountId, id) => {
      const [row] = await sql`SELECT ${sql.unsafe(COLUMNS)} FROM rules WHERE account_id = ${accountId} AND id = ${id}`;
      return row ? rule(row) : null;
    },

    async delete(accountId, id) {
      await sql`DELETE FROM rules WHERE account_id = ${accountId} AND id = ${id}`;
    },
  };
}

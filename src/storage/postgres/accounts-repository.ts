import type { Account, AccountRepository, Session, SessionRepository } from '../accounts';
import { numbers, type PostgresContext, uniqueChecked } from './context';

const account = (r: Record<string, unknown>) => numbers<Account>(r, 'createdAt');
const session = (r: Record<string, unknown>) => numbers<Session>(r, 'createdAt', 'expiresAt');

export function accountsRepository({ sql }: PostgresContext): AccountRepository {
  return {
    count: async () => Number((await sql`SELECT count(*) AS n FROM accounts`)[0].n),

    list: async () => (await sql`SELECT * FROM accounts ORDER BY created_at`).map(account),

    get: async (id) => {
      const [row] = await sql`SELECT * FROM accounts WHERE id = ${id}`;
      return row ? account(row) : null;
    },

    async insert(a) {
      await uniqueChecked(sql`INSERT INTO accounts ${sql(a)}`);
    },

    // The unique index is on lower(email): this reads it.
    getByEmail: async (email) => {
      const [row] = await sql`SELECT * FROM accounts WHERE lower(email) = lower(${email})`;
      return row ? account(row) : null;
    },
  };
}

export function sessionsRepository({ sql }: PostgresContext): SessionRepository {
  return {
    async insert(s) {
      await sql`INSERT INTO sessions ${sql(s)}`;
    },

    get: async (id) => {
      const [row] = await sql`SELECT * FROM sessions WHERE id = ${id}`;
      return row ? session(row) : null;
    },

    async delete(id) {
      await sql`DELETE FROM sessions WHERE id = ${id}`;
    },
  };
}

import { nameKey } from '../../names';
import type { Container, ContainerRepository } from '../containers';
import { numbers, type PostgresContext, uniqueChecked } from './context';

/** A container's fields and their columns: its compared name and its order are how this store keeps them, not part of a container. */
const FIELDS: Record<keyof Container, string> = {
  id: 'id',
  accountId: 'account_id',
  name: 'name',
  description: 'description',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  learnsIntoProfile: 'learns_into_profile',
};
const COLUMNS = Object.values(FIELDS).join(', ');
const container = (r: Record<string, unknown>) => numbers<Container>(r, 'createdAt', 'updatedAt');

/**
 * SQL for the containers of the account in `accountColumn` as one JSON array, oldest first as `list`
 * gives them: for a read that brings an account's containers along (a credential's, for a call).
 */
export const accountContainersJson = (accountColumn: string) => `(
  SELECT coalesce(json_agg(json_build_object(${Object.entries(FIELDS)
    .map(([field, column]) => `'${field}', k.${column}`)
    .join(', ')}) ORDER BY k.created_at, k.seq), '[]')
    FROM containers k WHERE k.account_id = ${accountColumn})`;

export function containersRepository({ sql }: PostgresContext): ContainerRepository {
  return {
    // seq after created_at: containers made in the same millisecond stay oldest first.
    list: async (accountId) =>
      (
        await sql`SELECT ${sql.unsafe(COLUMNS)} FROM containers WHERE account_id = ${accountId} ORDER BY created_at, seq`
      ).map(container),

    get: async (accountId, id) => {
      const [row] =
        await sql`SELECT ${sql.unsafe(COLUMNS)} FROM containers WHERE account_id = ${accountId} AND id = ${id}`;
      return row ? container(row) : null;
    },

    getByName: async (accountId, name) => {
      const [row] =
        await sql`SELECT ${sql.unsafe(COLUMNS)} FROM containers WHERE account_id = ${accountId} AND name_key = ${nameKey(name)}`;
      return row ? container(row) : null;
    },

    async insert(c) {
      await uniqueChecked(
        sql`INSERT INTO containers ${sql({ ...c, learnsIntoProfile: c.learnsIntoProfile ?? true, nameKey: nameKey(c.name) })}`,
      );
    },

    async update(accountId, id, patch) {
      const named = patch.name === undefined ? patch : { ...patch, nameKey: nameKey(patch.name) };
      await uniqueChecked(sql`UPDATE containers SET ${sql(named)} WHERE account_id = ${accountId} AND id = ${id}`);
    },

    async delete(accountId, id) {
      await sql`DELETE FROM containers WHERE account_id = ${accountId} AND id = ${id}`;
    },
  };
}

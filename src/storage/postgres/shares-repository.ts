import type { Share, ShareRepository } from '../shares';
import { numbers, type PostgresContext } from './context';

/** A share's row with its containers, in one read (`e` is the exposures table), as credentials-repository.ts reads a credential's. */
const SHARE = `e.*, ARRAY(
  SELECT container_id FROM exposure_containers l WHERE l.exposure_id = e.id ORDER BY container_id) AS container_ids`;
const fromRow = (row: Record<string, unknown>) =>
  numbers<Share>(row, 'createdAt', 'expiresAt', 'revokedAt', 'lastUsedAt');

export function sharesRepository({ sql, atomic }: PostgresContext): ShareRepository {
  return {
    async insert(share) {
      const { containerIds, ...row } = share;
      await atomic(async (q) => {
        await q`INSERT INTO exposures ${q(row)}`;
        if (containerIds.length)
          await q`INSERT INTO exposure_containers ${q(containerIds.map((containerId) => ({ exposureId: share.id, containerId })))}`;
      });
    },

    async getById(id) {
      const [row] = await sql`SELECT ${sql.unsafe(SHARE)} FROM exposures e WHERE e.id = ${id}`;
      return row ? fromRow(row) : null;
    },

    list: async (accountId) =>
      (
        await sql`
      SELECT ${sql.unsafe(SHARE)} FROM exposures e WHERE e.account_id = ${accountId} ORDER BY e.created_at DESC, e.id DESC`
      ).map(fromRow),

    revoke: async (accountId, id, at) => {
      const [row] = await sql`
        WITH mine AS (SELECT id FROM exposures WHERE account_id = ${accountId} AND id = ${id}),
             revoked AS (UPDATE exposures SET revoked_at = ${at} WHERE id IN (SELECT id FROM mine) AND revoked_at IS NULL)
        SELECT count(*) AS n FROM mine`;
      return Number(row.n) === 1;
    },
  };
}

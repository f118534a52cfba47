import type { Share, ShareRepository } from '../shares';
import { groupBy } from '../group-by';
import { numbers, type PostgresContext } from './context';

export function sharesRepository({ sql, atomic }: PostgresContext): ShareRepository {
  /** The rows with their containers, read in one query for all of them. */
  async function withContainers(rows: Record<string, unknown>[]): Promise<Share[]> {
    if (rows.length === 0) return [];
    const links: { exposureId: string; containerId: string }[] = await sql`
      SELECT exposure_id, container_id FROM exposure_containers WHERE exposure_id = ANY(${rows.map((r) => r.id)}::text[])
       ORDER BY exposure_id, container_id`;
    const byShare = groupBy(links, (l) => l.exposureId);
    return rows.map((row) => ({
      ...numbers<Share>(row, 'createdAt', 'expiresAt', 'revokedAt', 'lastUsedAt'),
      containerIds: (byShare.get(row.id as string) ?? []).map((l) => l.containerId),
    }));
  }

  return {
    async insert(share) {
      const { containerIds, ...row } = share;
      await atomic(async (q) => {
        await q`INSERT INTO exposures ${q(row)}`;
        if (containerIds.length)
          await q`INSERT INTO exposure_containers ${q(containerIds.map((containerId) => ({ exposureId: share.id, containerId })))}`;
      });
    },

    getById: async (id) => (await withContainers(await sql`SELECT * FROM exposures WHERE id = ${id}`))[0] ?? null,

    list: async (accountId) =>
      withContainers(
        await sql`SELECT * FROM exposures WHERE account_id = ${accountId} ORDER BY created_at DESC, id DESC`,
      ),

    revoke: async (accountId, id, at) => {
      const [row] = await sql`
        WITH mine AS (SELECT id FROM exposures WHERE account_id = ${accountId} AND id = ${id}),
             revoked AS (UPDATE exposures SET revoked_at = ${at} WHERE id IN (SELECT id FROM mine) AND revoked_at IS NULL)
        SELECT count(*) AS n FROM mine`;
      return Number(row.n) === 1;
    },
  };
}

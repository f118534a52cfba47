import type { SQL } from 'bun';
import { type Credential, type CredentialRepository, storedKind } from '../credentials';
import { groupBy } from '../group-by';
import { numbers, type PostgresContext } from './context';

const int8 = ['expiresAt', 'revokedAt', 'createdAt', 'lastUsedAt'];

export function credentialsRepository({ sql, atomic }: PostgresContext): CredentialRepository {
  async function writeContainers(q: SQL, credentialId: string, containerIds: string[]): Promise<void> {
    if (containerIds.length === 0) return;
    await q`INSERT INTO credential_containers ${q(containerIds.map((containerId) => ({ credentialId, containerId })))}`;
  }

  /** The rows with their ticked containers, read in one query for all of them. */
  async function withContainers(rows: Record<string, unknown>[]): Promise<Credential[]> {
    if (rows.length === 0) return [];
    const links: { credentialId: string; containerId: string }[] = await sql`
      SELECT credential_id, container_id FROM credential_containers WHERE credential_id = ANY(${rows.map((r) => r.id)}::text[])
       ORDER BY credential_id, container_id`;
    const byCredential = groupBy(links, (l) => l.credentialId);
    return rows.map((row) => ({
      ...numbers<Credential>(row, ...int8),
      containerIds: (byCredential.get(row.id as string) ?? []).map((l) => l.containerId),
    }));
  }

  const one = async (rows: Record<string, unknown>[]) => (rows[0] ? (await withContainers([rows[0]]))[0]! : null);

  return {
    async insert(credential) {
      const { containerIds, ...rest } = credential;
      const kind = storedKind(credential.kind);
      await atomic(async (q) => {
        await q`INSERT INTO credentials ${q({ ...rest, kind })}`;
        await writeContainers(q, credential.id, containerIds);
      });
    },

    getById: async (id) => one(await sql`SELECT * FROM credentials WHERE id = ${id}`),

    get: async (accountId, id) =>
      one(await sql`SELECT * FROM credentials WHERE account_id = ${accountId} AND id = ${id}`),

    list: async (accountId, kind = 'developer_key') =>
      withContainers(
        await sql`
      SELECT * FROM credentials WHERE account_id = ${accountId} AND kind = ${kind} ORDER BY created_at DESC, id DESC`,
      ),

    async update(accountId, id, patch) {
      if (Object.keys(patch).length === 0) return;
      await sql`UPDATE credentials SET ${sql(patch)} WHERE account_id = ${accountId} AND id = ${id}`;
    },

    async setContainers(accountId, id, containerIds) {
      await atomic(async (q) => {
        // Locked until the end: two replacements of one credential's containers never interleave.
        const [held] = await q`SELECT id FROM credentials WHERE account_id = ${accountId} AND id = ${id} FOR UPDATE`;
        if (!held) return;
        await q`DELETE FROM credential_containers WHERE credential_id = ${id}`;
        await writeContainers(q, id, containerIds);
      });
    },

    async touch(id, at) {
      await sql`UPDATE credentials SET last_used_at = ${at} WHERE id = ${id}`;
    },

    revokeConsentTokens: async (accountId, clientId, at) =>
      (
        await sql`
      UPDATE credentials SET revoked_at = ${at}
       WHERE account_id = ${accountId} AND kind = 'consent_token' AND client_id = ${clientId} AND revoked_at IS NULL`
      ).count,
  };
}

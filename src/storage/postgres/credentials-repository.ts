import type { SQL } from 'bun';
import { type Credential, type CredentialRepository, storedKind } from '../credentials';
import type { Container } from '../containers';
import { accountContainersJson } from './containers-repository';
import { numbers, type PostgresContext, parsed } from './context';

const int8 = ['expiresAt', 'revokedAt', 'createdAt', 'lastUsedAt'];

/** A credential's row with its ticked containers, in one read (`c` is the credentials table). */
const CREDENTIAL = `c.*, ARRAY(
  SELECT container_id FROM credential_containers l WHERE l.credential_id = c.id ORDER BY container_id) AS container_ids`;
const fromRow = (row: Record<string, unknown>) => numbers<Credential>(row, ...int8);

export function credentialsRepository({ sql, atomic }: PostgresContext): CredentialRepository {
  async function writeContainers(q: SQL, credentialId: string, containerIds: string[]): Promise<void> {
    if (containerIds.length === 0) return;
    await q`INSERT INTO credential_containers ${q(containerIds.map((containerId) => ({ credentialId, containerId })))}`;
  }

  const one = (rows: Record<string, unknown>[]) => (rows[0] ? fromRow(rows[0]) : null);

  return {
    async insert(credential) {
      const { containerIds, ...rest } = credential;
      const kind = storedKind(credential.kind);
      await atomic(async (q) => {
        await q`INSERT INTO credentials ${q({ ...rest, kind })}`;
        await writeContainers(q, credential.id, containerIds);
      });
    },

    getById: async (id) => one(await sql`SELECT ${sql.unsafe(CREDENTIAL)} FROM credentials c WHERE c.id = ${id}`),

    async getForCall(id) {
      const [row] = await sql`
        SELECT ${sql.unsafe(CREDENTIAL)}, ${sql.unsafe(accountContainersJson('c.account_id'))} AS account_containers
          FROM credentials c WHERE c.id = ${id}`;
      if (!row) return null;
      const { accountContainers, ...rest } = row;
      return { credential: fromRow(rest), accountContainers: parsed<Container[]>(accountContainers) };
    },

    get: async (accountId, id) =>
      one(
        await sql`SELECT ${sql.unsafe(CREDENTIAL)} FROM credentials c WHERE c.account_id = ${accountId} AND c.id = ${id}`,
      ),

    list: async (accountId, kind = 'developer_key') =>
      (
        await sql`
      SELECT ${sql.unsafe(CREDENTIAL)} FROM credentials c
       WHERE c.account_id = ${accountId} AND c.kind = ${kind} ORDER BY c.created_at DESC, c.id DESC`
      ).map(fromRow),

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

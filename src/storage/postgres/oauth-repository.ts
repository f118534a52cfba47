import type { AuthorizationCode, OAuthClient, OAuthRepository } from '../oauth';
import { numbers, parsed, type PostgresContext } from './context';

function client(r: Record<string, unknown>): OAuthClient {
  const c = numbers<OAuthClient>(r, 'createdAt', 'lastUsedAt', 'expiresAt', 'fetchedAt', 'freshUntil');
  return { ...c, redirectUris: parsed(c.redirectUris), metadata: parsed(c.metadata) };
}

function code(r: Record<string, unknown>): AuthorizationCode {
  const c = numbers<AuthorizationCode>(r, 'createdAt', 'expiresAt', 'usedAt');
  return { ...c, containerIds: parsed(c.containerIds) };
}

/** The client as stored: its JSON columns as text. */
const stored = (c: OAuthClient) => ({
  ...c,
  redirectUris: JSON.stringify(c.redirectUris),
  metadata: JSON.stringify(c.metadata),
});

export function oauthRepository({ sql }: PostgresContext): OAuthRepository {
  return {
    async insertClient(c) {
      await sql`INSERT INTO oauth_clients ${sql(stored(c))}`;
    },

    async upsertClient(c) {
      const { clientId: _, createdAt: __, lastUsedAt: ___, ...fresh } = stored(c);
      await sql`INSERT INTO oauth_clients ${sql(stored(c))} ON CONFLICT (client_id) DO UPDATE SET ${sql(fresh)}`;
    },

    getClient: async (clientId) => {
      const [row] = await sql`SELECT * FROM oauth_clients WHERE client_id = ${clientId}`;
      return row ? client(row) : null;
    },

    async markClientUsed(clientId, at) {
      await sql`UPDATE oauth_clients SET last_used_at = ${at}, expires_at = NULL WHERE client_id = ${clientId}`;
    },

    deleteExpiredClients: async (now) => (await sql`DELETE FROM oauth_clients WHERE expires_at < ${now}`).count,

    async insertCode(c) {
      await sql`INSERT INTO oauth_codes ${sql({ ...c, containerIds: JSON.stringify(c.containerIds) })}`;
    },

    getCode: async (id) => {
      const [row] = await sql`SELECT * FROM oauth_codes WHERE id = ${id}`;
      return row ? code(row) : null;
    },

    // One UPDATE guarded by `used_at IS NULL`: two concurrent exchanges cannot both win.
    useCode: async (id, at) =>
      (await sql`UPDATE oauth_codes SET used_at = ${at} WHERE id = ${id} AND used_at IS NULL`).count === 1,

    async setCodeToken(id, tokenId) {
      await sql`UPDATE oauth_codes SET token_id = ${tokenId} WHERE id = ${id}`;
    },

    deleteExpiredCodes: async (before) => (await sql`DELETE FROM oauth_codes WHERE expires_at < ${before}`).count,
  };
}

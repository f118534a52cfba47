import { and, eq, isNull, lt } from 'drizzle-orm';
import type { OAuthRepository } from '../oauth';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

export function oauthRepository({ db }: SqliteContext): Synchronous<OAuthRepository> {
  return {
    insertClient(client) {
      db.insert(t.oauthClients).values(client).run();
    },

    upsertClient(client) {
      const { clientId: _, createdAt: __, lastUsedAt: ___, ...fresh } = client;
      db.insert(t.oauthClients)
        .values(client)
        .onConflictDoUpdate({ target: t.oauthClients.clientId, set: fresh })
        .run();
    },

    getClient: (clientId) =>
      db.select().from(t.oauthClients).where(eq(t.oauthClients.clientId, clientId)).get() ?? null,

    markClientUsed(clientId, at) {
      db.update(t.oauthClients)
        .set({ lastUsedAt: at, expiresAt: null })
        .where(eq(t.oauthClients.clientId, clientId))
        .run();
    },

    deleteExpiredClients: (now) =>
      db
        .delete(t.oauthClients)
        .where(lt(t.oauthClients.expiresAt, now))
        .returning({ id: t.oauthClients.clientId })
        .all().length,

    insertCode(code) {
      db.insert(t.oauthCodes).values(code).run();
    },

    getCode: (id) => db.select().from(t.oauthCodes).where(eq(t.oauthCodes.id, id)).get() ?? null,

    // One UPDATE guarded by `used_at IS NULL`: two concurrent exchanges cannot both win.
    useCode: (id, at) =>
      db
        .update(t.oauthCodes)
        .set({ usedAt: at })
        .where(and(eq(t.oauthCodes.id, id), isNull(t.oauthCodes.usedAt)))
        .returning({ id: t.oauthCodes.id })
        .all().length === 1,

    setCodeToken(id, tokenId) {
      db.update(t.oauthCodes).set({ tokenId }).where(eq(t.oauthCodes.id, id)).run();
    },

    deleteExpiredCodes: (before) =>
      db.delete(t.oauthCodes).where(lt(t.oauthCodes.expiresAt, before)).returning({ id: t.oauthCodes.id }).all().length,
  };
}

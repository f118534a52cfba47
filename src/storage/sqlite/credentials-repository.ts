import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { ContainerRepository } from '../containers';
import { type Credential, type CredentialRepository, storedKind } from '../credentials';
import type { SqliteContext, Synchronous } from './context';
import { withContainerIds } from './linked-containers';
import * as t from './schema';

type CredentialRow = typeof t.credentials.$inferSelect;

export function credentialsRepository(
  { db, atomic, prepared }: SqliteContext,
  containers: Synchronous<ContainerRepository>,
): Synchronous<CredentialRepository> {
  const mine = (accountId: string, id: string) => and(eq(t.credentials.accountId, accountId), eq(t.credentials.id, id));

  function writeContainers(credentialId: string, containerIds: string[]): void {
    if (containerIds.length === 0) return;
    db.insert(t.credentialContainers)
      .values(containerIds.map((containerId) => ({ credentialId, containerId })))
      .run();
  }

  const withContainers = (rows: CredentialRow[]): Credential[] =>
    withContainerIds(db, rows, {
      table: t.credentialContainers,
      owner: t.credentialContainers.credentialId,
      container: t.credentialContainers.containerId,
    });

  const one = (row: CredentialRow | undefined): Credential | null => (row ? withContainers([row])[0]! : null);
  // Every call with a key reads its credential and containers: prepared once (context.ts).
  const credentialById = prepared(
    db
      .select()
      .from(t.credentials)
      .where(eq(t.credentials.id, sql.placeholder('id')))
      .prepare(),
  );
  const credentialContainers = prepared(
    db
      .select({ containerId: t.credentialContainers.containerId })
      .from(t.credentialContainers)
      .where(eq(t.credentialContainers.credentialId, sql.placeholder('id')))
      .orderBy(t.credentialContainers.containerId)
      .prepare(),
  );
  const byId = (id: string): Credential | null => {
    const row = credentialById.get({ id });
    return row ? { ...row, containerIds: credentialContainers.all({ id }).map((l) => l.containerId) } : null;
  };

  return {
    insert(credential) {
      const { containerIds, ...rest } = credential;
      const kind = storedKind(credential.kind);
      atomic(() => {
        db.insert(t.credentials)
          .values({ ...rest, kind })
          .run();
        writeContainers(credential.id, containerIds);
      });
    },

    getById: byId,

    getForCall(id) {
      const credential = byId(id);
      return credential && { credential, accountContainers: containers.list(credential.accountId) };
    },

    get: (accountId, id) => one(db.select().from(t.credentials).where(mine(accountId, id)).get()),

    list: (accountId, kind = 'developer_key') =>
      withContainers(
        db
          .select()
          .from(t.credentials)
          .where(and(eq(t.credentials.accountId, accountId), eq(t.credentials.kind, kind)))
          .orderBy(desc(t.credentials.createdAt), desc(t.credentials.id))
          .all(),
      ),

    update(accountId, id, patch) {
      if (Object.keys(patch).length === 0) return;
      db.update(t.credentials).set(patch).where(mine(accountId, id)).run();
    },

    setContainers(accountId, id, containerIds) {
      atomic(() => {
        if (!db.select({ id: t.credentials.id }).from(t.credentials).where(mine(accountId, id)).get()) return;
        db.delete(t.credentialContainers).where(eq(t.credentialContainers.credentialId, id)).run();
        writeContainers(id, containerIds);
      });
    },

    touch(id, at) {
      db.update(t.credentials).set({ lastUsedAt: at }).where(eq(t.credentials.id, id)).run();
    },

    revokeConsentTokens: (accountId, clientId, at) =>
      db
        .update(t.credentials)
        .set({ revokedAt: at })
        .where(
          and(
            eq(t.credentials.accountId, accountId),
            eq(t.credentials.kind, 'consent_token'),
            eq(t.credentials.clientId, clientId),
            isNull(t.credentials.revokedAt),
          ),
        )
        .returning({ id: t.credentials.id })
        .all().length,
  };
}

import { and, desc, eq, lt } from 'drizzle-orm';
import type { AccessItem, AccessLogRepository } from '../access-log';
import { inChunks, type SqliteContext, type Synchronous } from './context';
import * as t from './schema';

export function accessLogRepository({ db, raw, atomic }: SqliteContext): Synchronous<AccessLogRepository> {
  return {
    insert(entries) {
      atomic(() => inChunks(entries, (chunk) => db.insert(t.accessLog).values(chunk).run()));
    },

    list(accountId, subject, limit, beforeId) {
      const who =
        'credentialId' in subject
          ? eq(t.accessLog.credentialId, subject.credentialId)
          : eq(t.accessLog.clientId, subject.clientId);
      const rows = db
        .select()
        .from(t.accessLog)
        .where(
          and(eq(t.accessLog.accountId, accountId), who, beforeId == null ? undefined : lt(t.accessLog.id, beforeId)),
        )
        .orderBy(desc(t.accessLog.id))
        .limit(limit)
        .all();
      return rows.map((r) => ({ ...r, items: r.items as AccessItem[] }));
    },

    prune(before, limit) {
      // Oldest first by the `at` index, a bounded batch at a time, so no one delete holds the write lock long.
      return raw
        .query('DELETE FROM access_log WHERE id IN (SELECT id FROM access_log WHERE at < ? ORDER BY at LIMIT ?)')
        .run(before, limit).changes;
    },
  };
}

import { and, desc, eq, sql } from 'drizzle-orm';
import type { UsageRepository } from '../usage';
import { inChunks, type SqliteContext, type Synchronous } from './context';
import * as t from './schema';

export function usageRepository({ db, atomic }: SqliteContext): Synchronous<UsageRepository> {
  return {
    record(entries) {
      atomic(() => inChunks(entries, (chunk) => db.insert(t.usage).values(chunk).run()));
    },

    summarize(accountId, credentialId, sinceMs) {
      const scope = and(
        eq(t.usage.accountId, accountId),
        eq(t.usage.credentialId, credentialId),
        sql`${t.usage.at} >= ${sinceMs}`,
      );
      const refusedCount = sql<number>`sum(${t.usage.outcome} = 'refused')`;
      const day = sql<string>`strftime('%Y-%m-%d', ${t.usage.at} / 1000, 'unixepoch')`;
      const perDay = db
        .select({ day, calls: sql<number>`count(*)`, refused: refusedCount })
        .from(t.usage)
        .where(scope)
        .groupBy(day)
        .orderBy(day)
        .all();
      const perTool = db
        .select({ tool: t.usage.tool, calls: sql<number>`count(*)`, refused: refusedCount })
        .from(t.usage)
        .where(scope)
        .groupBy(t.usage.tool)
        .orderBy(desc(sql`count(*)`), t.usage.tool)
        .all();
      const recent = db
        .select({ at: t.usage.at, tool: t.usage.tool, outcome: t.usage.outcome, status: t.usage.status })
        .from(t.usage)
        .where(and(eq(t.usage.accountId, accountId), eq(t.usage.credentialId, credentialId)))
        .orderBy(desc(t.usage.at), desc(t.usage.id))
        .limit(20)
        .all();
      return { perDay, perTool, refused: perDay.reduce((n, d) => n + d.refused, 0), recent };
    },
  };
}

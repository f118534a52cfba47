import type { UsageRepository } from '../usage';
import { numbers, type PostgresContext } from './context';

/** Rows a multi-row insert takes at once (six parameters each, within the protocol's 65,535). */
const INSERT_CHUNK = 1_000;

export function usageRepository({ sql, atomic }: PostgresContext): UsageRepository {
  return {
    async record(entries) {
      if (entries.length === 0) return;
      await atomic(async (q) => {
        for (let i = 0; i < entries.length; i += INSERT_CHUNK)
          await q`INSERT INTO usage ${q(entries.slice(i, i + INSERT_CHUNK))}`;
      });
    },

    async summarize(accountId, credentialId, sinceMs) {
      const day = sql`to_char(to_timestamp(at / 1000.0) AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;
      const counted = (r: Record<string, unknown>) =>
        numbers<{ calls: number; refused: number }>(r, 'calls', 'refused');
      const scope = sql`account_id = ${accountId} AND credential_id = ${credentialId} AND at >= ${sinceMs}`;
      const perDay = (
        await sql`
        SELECT ${day} AS day, count(*) AS calls, count(*) FILTER (WHERE outcome = 'refused') AS refused
          FROM usage WHERE ${scope} GROUP BY 1 ORDER BY 1`
      ).map(counted);
      const perTool = (
        await sql`
        SELECT tool, count(*) AS calls, count(*) FILTER (WHERE outcome = 'refused') AS refused
          FROM usage WHERE ${scope} GROUP BY tool ORDER BY count(*) DESC, tool`
      ).map(counted);
      const recent = (
        await sql`
        SELECT at, tool, outcome, status FROM usage WHERE account_id = ${accountId} AND credential_id = ${credentialId}
         ORDER BY at DESC, id DESC LIMIT 20`
      ).map((r: Record<string, unknown>) => numbers(r, 'at'));
      return {
        perDay,
        perTool,
        refused: perDay.reduce((n: number, d: { refused: number }) => n + d.refused, 0),
        recent,
      };
    },
  };
}

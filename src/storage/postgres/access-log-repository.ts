import type { AccessLogRepository, StoredAccessEntry } from '../access-log';
import { numbers, parsed, type PostgresContext } from './context';

/** Rows a multi-row insert takes at once (seven parameters each, within the protocol's 65,535). */
const INSERT_CHUNK = 1_000;

function entry(r: Record<string, unknown>): StoredAccessEntry {
  const e = numbers<StoredAccessEntry>(r, 'id', 'at');
  return { ...e, items: parsed(e.items) };
}

export function accessLogRepository({ sql, atomic }: PostgresContext): AccessLogRepository {
  return {
    async insert(entries) {
      if (entries.length === 0) return;
      const rows = entries.map((e) => ({ ...e, items: JSON.stringify(e.items) }));
      await atomic(async (q) => {
        for (let i = 0; i < rows.length; i += INSERT_CHUNK)
          await q`INSERT INTO access_log ${q(rows.slice(i, i + INSERT_CHUNK))}`;
      });
    },

    list: async (accountId, subject, limit, beforeId) =>
      (
        await sql`
      SELECT * FROM access_log
       WHERE account_id = ${accountId}
         AND ${'credentialId' in subject ? sql`credential_id = ${subject.credentialId}` : sql`client_id = ${subject.clientId}`}
         ${beforeId == null ? sql`` : sql`AND id < ${beforeId}`}
       ORDER BY id DESC LIMIT ${limit}`
      ).map(entry),

    // Oldest first by the `at` index, a bounded batch at a time, so no one delete holds its locks long.
    prune: async (before, limit) =>
      (
        await sql`
      DELETE FROM access_log WHERE id IN (SELECT id FROM access_log WHERE at < ${before} ORDER BY at LIMIT ${limit})`
      ).count,
  };
}

/** The limits every process shares, over PostgreSQL: the table of 0002_shared_limits.sql, and advisory locks. */
import type { SQL } from 'bun';
import type { SharedLimits } from '../shared-limits';

const MINUTE_MS = 60_000;

export function postgresSharedLimits(sql: SQL): SharedLimits {
  let pruned = 0;
  return {
    async take(key, limit, now) {
      const minute = Math.floor(now / MINUTE_MS);
      if (minute > pruned) {
        pruned = minute;
        void sql`DELETE FROM rate_counts WHERE minute < ${minute - 1}`.catch(() => {}); // best effort: old minutes only weigh nothing
      }
      const [row] = await sql`
        WITH counted AS (
          INSERT INTO rate_counts (key, minute, calls) VALUES (${key}, ${minute}, 1)
          ON CONFLICT (key, minute) DO UPDATE SET calls = rate_counts.calls + 1 RETURNING calls)
        SELECT (SELECT calls FROM counted) AS calls,
               coalesce((SELECT calls FROM rate_counts WHERE key = ${key} AND minute = ${minute - 1}), 0) AS before`;
      const inside = 1 - (now % MINUTE_MS) / MINUTE_MS;
      if (Math.floor(row.before * inside) + row.calls <= limit) return true;
      // Refused calls count nothing, as the in-memory limiter's.
      await sql`UPDATE rate_counts SET calls = calls - 1 WHERE key = ${key} AND minute = ${minute}`;
      return false;
    },

    async withTurn(accountId, limit, turn, busy) {
      // A session's advisory lock lives on its connection: the turn holds one of the pool's for its length.
      const connection = await sql.reserve();
      try {
        for (let slot = 0; slot < limit; slot++) {
          const [{ held }] = await connection`SELECT pg_try_advisory_lock(hashtext(${`engram_turn:${accountId}`}), ${slot}) AS held`;
          if (!held) continue;
          try {
            return await turn();
          } finally {
            await connection`SELECT pg_advisory_unlock(hashtext(${`engram_turn:${accountId}`}), ${slot})`.catch(() => {});
          }
        }
        return busy();
      } finally {
        connection.release();
      }
    },
  };
}

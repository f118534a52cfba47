/** The limits every process shares, over PostgreSQL: take_call of 0002_shared_limits.sql, and advisory locks. */
import type { SQL } from 'bun';
import type { SharedLimits } from '../shared-limits';

const MINUTE_MS = 60_000;

export function postgresSharedLimits(sql: SQL): SharedLimits {
  return {
    take: async (key, limit, now) =>
      (await sql`SELECT take_call(${key}, ${now}, ${MINUTE_MS}, ${limit}) AS taken`)[0].taken,

    async withTurn(accountId, limit, turn, busy) {
      // A session's advisory lock lives on its connection: the turn holds one of the pool's for its length.
      const connection = await sql.reserve();
      try {
        for (let slot = 0; slot < limit; slot++) {
          const [{ held }] =
            await connection`SELECT pg_try_advisory_lock(hashtext(${`engram_turn:${accountId}`}), ${slot}) AS held`;
          if (!held) continue;
          try {
            return await turn();
          } finally {
            await connection`SELECT pg_advisory_unlock(hashtext(${`engram_turn:${accountId}`}), ${slot})`.catch(
              () => {},
            );
          }
        }
        return busy();
      } finally {
        connection.release();
      }
    },
  };
}

/**
 * The limits every process shares, over PostgreSQL: take_call of 0002_shared_limits.sql, and the
 * accounts' turn slots as session advisory locks.
 */
import type { SQL } from 'bun';
import type { SharedLimits } from '../shared-limits';

const MINUTE_MS = 60_000;

/**
 * `sql` is the pool; `locks` a connection of its own on which every turn's slot is held, never one
 * of the pool's: a turn can last a minute (a model's answer), and turns each holding a pooled
 * connection would leave none for the process's other queries. One session holds any number of
 * advisory locks, and lets go of all of them when it ends: a process that dies frees its slots at
 * once, as it did with a connection a turn.
 */
export function postgresSharedLimits(sql: SQL, locks: SQL): SharedLimits {
  // A session is granted a lock it already holds again, so this process's own slots are told apart
  // here: a slot is marked before it is asked for, and unmarked once it is let go.
  const mine = new Set<string>();
  return {
    take: async (key, limit, now) =>
      (await sql`SELECT take_call(${key}, ${now}, ${MINUTE_MS}, ${limit}) AS taken`)[0].taken,

    async withTurn(accountId, limit, turn, busy) {
      const key = `engram_turn:${accountId}`;
      for (let slot = 0; slot < limit; slot++) {
        const name = `${slot}:${accountId}`;
        if (mine.has(name)) continue;
        mine.add(name);
        let held = false;
        try {
          [{ held }] = await locks`SELECT pg_try_advisory_lock(hashtext(${key}), ${slot}) AS held`;
        } finally {
          if (!held) mine.delete(name);
        }
        if (!held) continue;
        try {
          return await turn();
        } finally {
          await locks`SELECT pg_advisory_unlock(hashtext(${key}), ${slot})`.catch(() => {});
          mine.delete(name);
        }
      }
      return busy();
    },
  };
}

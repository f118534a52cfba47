/** The vector change feed over PostgreSQL: the tables and triggers of migrations/postgres/0001_init.sql, and LISTEN. */
import type { SQL } from 'bun';
import type { VectorChange, VectorFeed } from '../vector-feed';

/** The channel the commit trigger notifies on, with the commit's number. */
const CHANNEL = 'engram_vectors';

export function postgresVectorFeed(sql: SQL): VectorFeed {
  return {
    head: async () => Number((await sql`SELECT coalesce(max(commit_seq), 0) AS n FROM vector_commits`)[0].n),

    since: async (after, commits) =>
      (
        await sql`
      WITH landed AS (SELECT xid, commit_seq FROM vector_commits WHERE commit_seq > ${after} ORDER BY commit_seq LIMIT ${commits})
      SELECT landed.commit_seq AS commit, c.passage_id, c.tier, c.removed
        FROM landed JOIN vector_changes c ON c.xid = landed.xid
       ORDER BY landed.commit_seq, c.id`
      ).map(
        (r: Record<string, unknown>): VectorChange => ({
          commit: Number(r.commit),
          passageId: Number(r.passageId),
          tier: r.tier as VectorChange['tier'],
          removed: r.removed as boolean,
        }),
      ),

    async listen(woken) {
      let listening = false;
      const subscription = await sql.listen(
        CHANNEL,
        (payload) => woken(Number(payload)),
        () => {
          // Bun listens again by itself after a lost connection; what landed meanwhile was not heard.
          if (listening) woken(null);
          listening = true;
        },
      );
      return { close: () => subscription.unlisten() };
    },
  };
}

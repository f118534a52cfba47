/** The vector change feed over PostgreSQL: the tables and triggers of migrations/postgres/0001_init.sql, and LISTEN. */
import type { SQL } from 'bun';
import type { VectorChange, VectorFeed } from '../vector-feed';

/** The channel the commit trigger notifies on, with the commit's number. */
const CHANNEL = 'engram_vectors';

/**
 * The feed's newest commits kept when it is pruned, unless told (ENGRAM_FEED_KEEP_COMMITS; see
 * docs/decisions.md, "The vector feed's retention"): a follower further behind reads its indexes
 * again from the store. A learned document is one or two commits, so this is tens of thousands of
 * documents (~10 MB of feed).
 */
const FEED_KEPT = 50_000;

/**
 * The feed's id, head and floor (`VectorFeed.mark`), read on `sql`: the pool, or a transaction's
 * connection. The head counts the floor too: once every commit is pruned, none may be left to count.
 */
async function feedMark(sql: SQL): ReturnType<VectorFeed['mark']> {
  const [row] = await sql`
    SELECT feed_id AS id, floor, greatest((SELECT max(commit_seq) FROM vector_commits), floor) AS head FROM vector_feed_floor`;
  return { id: row.id as string, head: Number(row.head), floor: Number(row.floor) };
}

/**
 * The feed's head (`VectorFeed.head`) on `sql`: also the store's `commitsByOthers`, since it
 * changes whenever any process commits a change to the stored vectors.
 */
export const feedHead = async (sql: SQL): Promise<number> => (await feedMark(sql)).head;

/** The feed over `sql`, pruned to its newest `retention` commits. */
export function postgresVectorFeed(sql: SQL, retention = FEED_KEPT): VectorFeed {
  return {
    head: () => feedHead(sql),
    mark: () => feedMark(sql),

    async since(after, commits) {
      // One statement, one snapshot: the rows of the commits asked for, or the floor that pruned them.
      const rows = await sql`
      SELECT f.floor, x.commit, x.passage_id, x.tier, x.removed FROM vector_feed_floor f
        LEFT JOIN LATERAL (
          WITH landed AS (SELECT xid, commit_seq FROM vector_commits WHERE commit_seq > ${after} ORDER BY commit_seq LIMIT ${commits})
          SELECT landed.commit_seq AS commit, c.passage_id, c.tier, c.removed, c.id
            FROM landed JOIN vector_changes c ON c.xid = landed.xid
        ) x ON true
       ORDER BY x.commit, x.id`;
      if (after < Number(rows[0].floor)) return null;
      return rows
        .filter((r: Record<string, unknown>) => r.commit !== null)
        .map(
          (r: Record<string, unknown>): VectorChange => ({
            commit: Number(r.commit),
            passageId: Number(r.passageId),
            tier: r.tier as VectorChange['tier'],
            removed: r.removed as boolean,
          }),
        );
    },

    prune: (kept = retention) =>
      sql.begin(async (tx) => {
        // The floor's row is locked first, so two processes pruning at once take turns.
        const [{ floor }] = await tx`SELECT floor FROM vector_feed_floor FOR UPDATE`;
        const [{ upto }] =
          await tx`SELECT coalesce(max(commit_seq), 0) - ${kept} AS upto FROM vector_commits WHERE commit_seq IS NOT NULL`;
        if (Number(upto) <= Number(floor)) return 0;
        await tx`DELETE FROM vector_changes c USING vector_commits m WHERE m.xid = c.xid AND m.commit_seq <= ${upto}`;
        const gone = await tx`DELETE FROM vector_commits WHERE commit_seq <= ${upto}`;
        await tx`UPDATE vector_feed_floor SET floor = ${upto}`;
        return gone.count;
      }),

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

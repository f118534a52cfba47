/**
 * The search index's passages, with PostgreSQL's full-text search for keywords (each passage's
 * tsvector in the narrow `passage_keywords` table and its GIN index, kept by a trigger:
 * migrations/postgres/0004_passage_keywords.sql). Their vectors are vectors-repository.ts's.
 */
import {
  KEYWORD_WEIGHTS,
  type PassageHit,
  type PassageRepository,
  type PassageText,
  type TurnCandidate,
} from '../passages';
import { numbers, type PostgresContext } from './context';
import { keywordQuery } from './keyword-query';

/**
 * ts_rank's weights of the labels D, C, B, A: a passage's text is D, its context (a chat turn's
 * neighbouring turns) C, its title B (migrations/postgres/0007_keyword_context.sql).
 */
const RANK_WEIGHTS = `{${KEYWORD_WEIGHTS.content}, ${KEYWORD_WEIGHTS.context}, ${KEYWORD_WEIGHTS.title}, 0}`;

type PassageHitRow = Omit<PassageHit, 'source' | 'score'> & {
  sourceDocumentId: string | null;
  sourceCustomId: string | null;
  sourcePosition: number | null;
};

export function passagesRepository({ sql, atomic }: PostgresContext): PassageRepository {
  /**
   * Holds a container's turns until the transaction ends, so that relinks in it take turns
   * (`turnsAround`): a relink that read the turns before another's commit would write contexts
   * without that commit's turn, or with a deleted one's words.
   */
  const holdTurns = async (containerId: string) =>
    sql`SELECT pg_advisory_xact_lock(hashtext(${`engram_turns:${containerId}`}))`;

  /** Documents in order, each with its passage when it was learned as exactly one (a turn, maybe). */
  async function withPassages(docs: { id: string; createdAt: unknown }[]): Promise<TurnCandidate[]> {
    const window = docs.map((d) => ({ documentId: d.id, addedAt: Number(d.createdAt) }));
    const ids = window.map((d) => d.documentId);
    const rows = await sql`
      SELECT document_id, id, content, context FROM passages p
       WHERE document_id = ANY(${ids}::text[])
         AND NOT EXISTS (SELECT 1 FROM passages o WHERE o.document_id = p.document_id AND o.position > 0)`;
    const passages = new Map<string, NonNullable<TurnCandidate['passage']>>(
      rows.map((r: { documentId: string; id: string; content: string; context: string | null }) => [
        r.documentId,
        { id: Number(r.id), content: r.content, context: r.context },
      ]),
    );
    return window.map((d): TurnCandidate => ({ ...d, passage: passages.get(d.documentId) ?? null }));
  }

  return {
    async search(accountId, containerIds, query, limit) {
      const match = keywordQuery(query);
      if (!match || containerIds.length === 0) return [];
      // The tsquery is made once, in FROM. Written inside ts_rank, it was made again for every
      // passage ranked once PostgreSQL ran the prepared statement's generic plan (from its sixth
      // run on), where the query text is a parameter: twice the time or more (docs/performance.md).
      const rows = await sql`
        SELECT passage_id, ts_rank(${RANK_WEIGHTS}::real[], keywords, query) AS score
          FROM passage_keywords, to_tsquery('english', ${match}) AS query
         WHERE keywords @@ query AND container_id = ANY(${containerIds}::text[]) AND account_id = ${accountId}
         ORDER BY score DESC, passage_id LIMIT ${limit}`;
      return rows.map((r: Record<string, unknown>) => numbers(r, 'passageId'));
    },

    list: async (accountId, documentId) =>
      sql`SELECT position, title, content FROM passages WHERE account_id = ${accountId} AND document_id = ${documentId} ORDER BY position`,

    replaceForDocument: (doc, passages) =>
      atomic(async (q) => {
        // Passages of an earlier, interrupted attempt are replaced, never doubled.
        await q`DELETE FROM passages WHERE document_id = ${doc.id}`;
        if (passages.length === 0) return [];
        const rows =
          await q`INSERT INTO passages ${q(passages.map((p) => ({ accountId: doc.accountId, containerId: doc.containerId, documentId: doc.id, ...p })))} RETURNING id`;
        return rows.map((r: { id: string }) => Number(r.id));
      }),

    async turnsAround(accountId, documentId, reach) {
      const [doc] = await sql`
        SELECT container_id, created_at, seq FROM documents WHERE account_id = ${accountId} AND id = ${documentId}`;
      if (!doc) return null;
      await holdTurns(doc.containerId);
      const [at, seq] = [Number(doc.createdAt), Number(doc.seq)];
      // The order documents are listed in: added time, then the order stored (seq).
      const before = await sql`SELECT id, created_at FROM documents
             WHERE container_id = ${doc.containerId} AND account_id = ${accountId}
               AND (created_at, seq) < (${at}, ${seq})
             ORDER BY created_at DESC, seq DESC LIMIT ${reach}`;
      const after = await sql`SELECT id, created_at FROM documents
             WHERE container_id = ${doc.containerId} AND account_id = ${accountId}
               AND (created_at, seq) > (${at}, ${seq})
             ORDER BY created_at, seq LIMIT ${reach}`;
      return withPassages([...[...before].reverse(), { id: documentId, createdAt: at }, ...after]);
    },

    async turnsAfter(mark, limit) {
      const firstAfter = async (containerId: string): Promise<string | null> =>
        (await sql`SELECT min(container_id) AS id FROM documents WHERE container_id > ${containerId}`)[0].id;
      // A container's start: before its first document.
      let at = mark ?? { containerId: await firstAfter(''), addedAt: -1, seq: -1 };
      for (;;) {
        const { containerId } = at;
        if (containerId === null) return null;
        // The order documents are listed in, as turnsAround reads them.
        const next = (n: number) => sql`SELECT id, created_at, seq FROM documents
               WHERE container_id = ${containerId} AND (created_at, seq) > (${at.addedAt}, ${at.seq})
               ORDER BY created_at, seq LIMIT ${n}`;
        // Held only where there is work, then read again: a container passed over holds nothing.
        const after = (await next(1)).length ? await holdTurns(containerId).then(() => next(limit + 1)) : [];
        if (after.length === 0) {
          at = { containerId: await firstAfter(containerId), addedAt: -1, seq: -1 };
          continue;
        }
        const before = await sql`SELECT id, created_at, seq FROM documents
               WHERE container_id = ${containerId} AND (created_at, seq) <= (${at.addedAt}, ${at.seq})
               ORDER BY created_at DESC, seq DESC LIMIT 1`;
        const docs = [...before, ...after];
        const last = docs.length - (after.length > limit ? 2 : 1);
        const mark = { containerId, addedAt: Number(docs[last].createdAt), seq: Number(docs[last].seq) };
        return { window: await withPassages(docs), first: before.length, last, mark };
      }
    },

    setContexts: (contexts) =>
      atomic(async (q) => {
        for (const { passageId, context } of contexts)
          await q`UPDATE passages SET context = ${context} WHERE id = ${passageId}`;
      }),

    count: async () => Number((await sql`SELECT count(*) AS n FROM passages`)[0].n),

    getForFact: async (memoryId) => {
      const [row] = await sql`SELECT id, title, content FROM passages WHERE memory_id = ${memoryId}`;
      return row ? numbers<PassageText>(row, 'id') : null;
    },

    async getHits(accountId, passageIds) {
      if (passageIds.length === 0) return [];
      const rows: PassageHitRow[] = (
        await sql`
        SELECT p.id AS passage_id, p.container_id, p.document_id, p.memory_id, d.custom_id, p.position, p.title, p.content,
               m.source_document_id, sd.custom_id AS source_custom_id, m.source_position
          FROM passages p LEFT JOIN documents d ON d.id = p.document_id
          LEFT JOIN memories m ON m.id = p.memory_id LEFT JOIN documents sd ON sd.id = m.source_document_id
         WHERE p.account_id = ${accountId} AND p.id = ANY(${passageIds}::bigint[])`
      ).map((r: Record<string, unknown>) => numbers(r, 'passageId'));
      return rows.map(({ sourceDocumentId, sourceCustomId, sourcePosition, ...hit }) => ({
        ...hit,
        score: 0,
        // A fact whose document was deleted keeps no source (forgetting clears it); one that never had one has none.
        source: sourceDocumentId
          ? { documentId: sourceDocumentId, customId: sourceCustomId, position: sourcePosition ?? 0 }
          : null,
      }));
    },

    listWithoutVectors: async (tier, afterPassageId, limit) =>
      (
        await sql`
      SELECT p.id, p.title, p.content FROM passages p
       WHERE p.id > ${afterPassageId} AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ${tier} AND v.unit = 0)
       ORDER BY p.id LIMIT ${limit}`
      ).map((r: Record<string, unknown>) => numbers<PassageText>(r, 'id')),

    listForRefinement: async (tier, containersFirst, { after, upTo }, limit) =>
      (
        await sql`
      SELECT p.id FROM passages p
        LEFT JOIN documents d ON d.id = p.document_id LEFT JOIN memories m ON m.id = p.memory_id
       WHERE p.id > ${after} AND p.id <= ${upTo}
         AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ${tier} AND v.unit = 0)
       ORDER BY array_position(${containersFirst}::text[], p.container_id) NULLS LAST,
                EXISTS (SELECT 1 FROM import_origins o WHERE o.document_id = p.document_id)
                  OR EXISTS (SELECT 1 FROM import_origins o WHERE o.memory_id = p.memory_id),
                coalesce(d.created_at, m.created_at) DESC, p.document_id, p.id
       LIMIT ${limit}`
      ).map((r: { id: string }) => Number(r.id)),

    getTexts: async (passageIds) =>
      passageIds.length
        ? (await sql`SELECT id, title, content FROM passages WHERE id = ANY(${passageIds}::bigint[]) ORDER BY id`).map(
            (r: Record<string, unknown>) => numbers<PassageText>(r, 'id'),
          )
        : [],

    // The identity's sequence: the highest id ever given, whatever was deleted since (0 before the first).
    lastId: async () =>
      Number((await sql`SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS id FROM passages_id_seq`)[0].id),
  };
}

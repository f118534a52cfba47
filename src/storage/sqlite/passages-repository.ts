/** The search index's passages: drizzle for rows, hand-written SQL for FTS5. Their vectors are vectors-repository.ts's. */
import { and, eq, sql } from 'drizzle-orm';
import {
  KEYWORD_WEIGHTS,
  type KeywordHit,
  type PassageHit,
  type PassageRepository,
  type PassageText,
  type TurnCandidate,
  type TurnMark,
  type VectorTier,
} from '../passages';
import type { SqliteContext, Synchronous } from './context';
import { ftsQuery } from './fts-query';
import * as t from './schema';

/**
 * What a search hit reads of a passage (`p`) and its document (`d`), or for a learned fact's passage,
 * of the fact (`m`) and the document it came from (`sd`). A document's custom id is read from
 * documents_custom_ids (migration 0027), never from its row, which keeps it after the content.
 */
export const PASSAGE_HIT_ROWS = `SELECT p.id AS passageId, p.container_id AS containerId, p.document_id AS documentId,
             p.memory_id AS memoryId, d.custom_id AS customId, p.position, p.title, p.content,
             m.source_document_id AS sourceDocumentId, sd.custom_id AS sourceCustomId, m.source_position AS sourcePosition
        FROM passages p LEFT JOIN documents d INDEXED BY documents_custom_ids ON d.id = p.document_id
        LEFT JOIN memories m ON m.id = p.memory_id
        LEFT JOIN documents sd INDEXED BY documents_custom_ids ON sd.id = m.source_document_id`;

/** BM25 with the index's columns weighed: title, content, context (migrations/0026_keyword_context.sql). */
const BM25 = `bm25(passages_fts, ${KEYWORD_WEIGHTS.title}, ${KEYWORD_WEIGHTS.content}, ${KEYWORD_WEIGHTS.context})`;

type PassageHitRow = Omit<PassageHit, 'source' | 'score'> & {
  sourceDocumentId: string | null;
  sourceCustomId: string | null;
  sourcePosition: number | null;
};

export function passagesRepository({ db, raw, atomic, prepared }: SqliteContext): Synchronous<PassageRepository> {
  const setContext = prepared(
    db
      .update(t.passages)
      .set({ context: sql`${sql.placeholder('context')}` })
      .where(eq(t.passages.id, sql.placeholder('passageId')))
      .prepare(),
  );

  /** Documents in order, each with its passage when it was learned as exactly one (a turn, maybe). */
  function withPassages(window: { documentId: string; addedAt: number }[]): TurnCandidate[] {
    const passages = new Map(
      raw
        .query<{ documentId: string; id: number; content: string; context: string | null }, [string]>(`
        SELECT document_id AS documentId, id, content, context FROM passages
         WHERE document_id IN (SELECT value FROM json_each(?1))
           AND document_id NOT IN (SELECT document_id FROM passages
                                    WHERE document_id IN (SELECT value FROM json_each(?1)) AND position > 0)`)
        .all(JSON.stringify(window.map((d) => d.documentId)))
        .map(({ documentId, ...p }) => [documentId, p]),
    );
    return window.map(({ documentId, addedAt }) => ({
      documentId,
      addedAt,
      passage: passages.get(documentId) ?? null,
    }));
  }

  return {
    /**
     * BM25 ranks in the full-text index alone first: its best `limit × 10` passages of any container
     * are looked up, and those in the containers kept. When that leaves `limit` or more, they are
     * exactly the containers' best (every passage not looked up ranks below them); otherwise the
     * exact query ranks every match of the containers. The first step spares reading the rows of
     * thousands of matches that cannot make the page. One query for all the containers: each
     * ranks the whole index, so a query per container cost that many times as much. BM25 weighs
     * words by the whole index, so a passage scores as in a search of its container alone.
     * (CROSS JOIN keeps SQLite from driving the join from the containers' every passage instead.)
     */
    search(accountId, containerIds, query, limit) {
      const match = ftsQuery(query);
      if (!match || containerIds.length === 0) return [];
      const containers = JSON.stringify(containerIds);
      const quick = raw
        .query<KeywordHit, [string, number, string, string, number]>(`
        WITH best AS MATERIALIZED (
          SELECT rowid AS id, -${BM25} AS score FROM passages_fts
           WHERE passages_fts MATCH ? ORDER BY score DESC LIMIT ?)
        SELECT best.id AS passageId, best.score AS score
          FROM best CROSS JOIN passages p ON p.id = best.id
         WHERE p.container_id IN (SELECT value FROM json_each(?)) AND p.account_id = ?
         ORDER BY best.score DESC LIMIT ?`)
        .all(match, limit * 10, containers, accountId, limit);
      if (quick.length >= limit) return quick;
      return raw
        .query<KeywordHit, [string, string, string, number]>(`
        SELECT p.id AS passageId, -${BM25} AS score
          FROM passages_fts
          CROSS JOIN passages p ON p.id = passages_fts.rowid
         WHERE passages_fts MATCH ? AND p.container_id IN (SELECT value FROM json_each(?)) AND p.account_id = ?
         ORDER BY score DESC
         LIMIT ?`)
        .all(match, containers, accountId, limit);
    },

    list: (accountId, documentId) =>
      db
        .select({ position: t.passages.position, title: t.passages.title, content: t.passages.content })
        .from(t.passages)
        .where(and(eq(t.passages.accountId, accountId), eq(t.passages.documentId, documentId)))
        .orderBy(t.passages.position)
        .all(),

    replaceForDocument: (doc, passages) =>
      atomic(() => {
        // Passages of an earlier, interrupted attempt are replaced, never doubled.
        db.delete(t.passages).where(eq(t.passages.documentId, doc.id)).run();
        if (passages.length === 0) return [];
        return db
          .insert(t.passages)
          .values(
            passages.map((p) => ({
              accountId: doc.accountId,
              containerId: doc.containerId,
              documentId: doc.id,
              ...p,
            })),
          )
          .returning({ id: t.passages.id })
          .all()
          .map((r) => r.id);
      }),

    turnsAround(accountId, documentId, reach) {
      const doc = raw
        .query<{ containerId: string; addedAt: number; seq: number }, [string, string]>(
          'SELECT container_id AS containerId, created_at AS addedAt, rowid AS seq FROM documents WHERE account_id = ? AND id = ?',
        )
        .get(accountId, documentId);
      if (!doc) return null;
      // The order documents are listed in: added time, then the order stored (the rowid).
      const side = (op: '<' | '>', order: 'ASC' | 'DESC') =>
        raw
          .query<{ documentId: string; addedAt: number }, [string, string, number, number, number]>(`
          SELECT id AS documentId, created_at AS addedAt FROM documents
           WHERE container_id = ?1 AND account_id = ?2 AND (created_at, rowid) ${op} (?3, ?4)
           ORDER BY created_at ${order}, rowid ${order} LIMIT ?5`)
          .all(doc.containerId, accountId, doc.addedAt, doc.seq, reach);
      return withPassages([...side('<', 'DESC').reverse(), { documentId, addedAt: doc.addedAt }, ...side('>', 'ASC')]);
    },

    turnsAfter(mark, limit) {
      const firstAfter = (containerId: string) =>
        raw
          .query<{ id: string | null }, [string]>(
            'SELECT min(container_id) AS id FROM documents WHERE container_id > ?',
          )
          .get(containerId)!.id;
      // A container's start: before its first document.
      let at: Omit<TurnMark, 'containerId'> & { containerId: string | null } = mark ?? {
        containerId: firstAfter(''),
        addedAt: -1,
        seq: -1,
      };
      for (;;) {
        const { containerId } = at;
        if (containerId === null) return null;
        // The order documents are listed in, as turnsAround reads them.
        const side = (op: '<=' | '>', order: 'ASC' | 'DESC', n: number) =>
          raw
            .query<TurnMark & { documentId: string }, [string, number, number, number]>(`
            SELECT id AS documentId, container_id AS containerId, created_at AS addedAt, rowid AS seq FROM documents
             WHERE container_id = ?1 AND (created_at, rowid) ${op} (?2, ?3)
             ORDER BY created_at ${order}, rowid ${order} LIMIT ?4`)
            .all(containerId, at.addedAt, at.seq, n);
        const after = side('>', 'ASC', limit + 1);
        if (after.length === 0) {
          at = { containerId: firstAfter(containerId), addedAt: -1, seq: -1 };
          continue;
        }
        const docs = [...side('<=', 'DESC', 1), ...after];
        const last = docs.length - (after.length > limit ? 2 : 1);
        const { addedAt, seq } = docs[last]!;
        return {
          window: withPassages(docs),
          first: docs.length - after.length,
          last,
          mark: { containerId, addedAt, seq },
        };
      }
    },

    /**
     * Each replaces the passage's entry in the keyword index with secure-delete on (0013), ~15 ms a
     * passage at 100,000: skipping it would leave the old entry's words in the index's pages, and a
     * forget of the passage later would not reach them (test/e2e/rest/forgetting.test.ts).
     */
    setContexts(contexts) {
      atomic(() => {
        for (const values of contexts) setContext.run(values);
      });
    },

    count: () => raw.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n,

    getForFact: (memoryId) =>
      db
        .select({ id: t.passages.id, title: t.passages.title, content: t.passages.content })
        .from(t.passages)
        .where(eq(t.passages.memoryId, memoryId))
        .get() ?? null,

    getHits(accountId, passageIds) {
      if (passageIds.length === 0) return [];
      return raw
        .query<PassageHitRow, (string | number)[]>(`
        ${PASSAGE_HIT_ROWS}
         WHERE p.account_id = ? AND p.id IN (${passageIds.map(() => '?').join(',')})`)
        .all(accountId, ...passageIds)
        .map(({ sourceDocumentId, sourceCustomId, sourcePosition, ...hit }) => ({
          ...hit,
          score: 0,
          // A fact whose document was deleted keeps no source (forgetting clears it); one that never had one has none.
          source: sourceDocumentId
            ? { documentId: sourceDocumentId, customId: sourceCustomId, position: sourcePosition ?? 0 }
            : null,
        }));
    },

    listWithoutVectors: (tier, afterPassageId, limit) =>
      raw
        .query<PassageText, [VectorTier, number, number]>(`
      SELECT p.id, p.title, p.content FROM passages p
       WHERE p.id > ?2 AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
       ORDER BY p.id LIMIT ?3`)
        .all(tier, afterPassageId, limit),

    // The containers first by their place in the list (json_each's key), then the person's own writing
    // before imports', newest first. One pass over the passages without vectors, sorted.
    listForRefinement: (tier, containersFirst, { after, upTo }, limit) =>
      raw
        .query<{ id: number }, [VectorTier, string, number, number, number]>(`
      SELECT p.id FROM passages p
        LEFT JOIN documents d ON d.id = p.document_id LEFT JOIN memories m ON m.id = p.memory_id
       WHERE p.id > ?4 AND p.id <= ?5
         AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
       ORDER BY coalesce((SELECT key FROM json_each(?2) WHERE value = p.container_id), 1e9),
                EXISTS (SELECT 1 FROM import_origins o WHERE o.document_id = p.document_id)
                  OR EXISTS (SELECT 1 FROM import_origins o WHERE o.memory_id = p.memory_id),
                coalesce(d.created_at, m.created_at) DESC, p.document_id, p.id
       LIMIT ?3`)
        .all(tier, JSON.stringify(containersFirst), limit, after, upTo)
        .map((r) => r.id),

    getTexts: (passageIds) =>
      passageIds.length
        ? raw
            .query<PassageText, [string]>(
              'SELECT id, title, content FROM passages WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
            )
            .all(JSON.stringify(passageIds))
        : [],

    lastId: () =>
      raw.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'passages'").get()?.seq ?? 0,
  };
}

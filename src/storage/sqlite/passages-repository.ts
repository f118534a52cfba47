/** The search index: passages (drizzle for rows, hand-written SQL for FTS5) and their vectors of each tier. */
import { and, eq } from 'drizzle-orm';
import type { EmbeddingModel, KeywordHit, PassageHit, PassageRepository, PassageText, StoredVectors, VectorTier } from '../passages';
import type { SqliteContext } from './context';
import { ftsQuery } from './fts-query';
import { enqueue } from './jobs-repository';
import * as t from './schema';
import { readSetting, takeSetting, writeSetting } from './settings-repository';
import { insertVectors, int8Vector } from './vectors';

/** The settings row naming each tier's model (the fast tier's keeps the name it had before tiers). */
const EMBEDDING_MODEL_KEYS: Record<VectorTier, string> = { fast: 'embedding_model', strong: 'embedding_model_strong' };
/** Set once a server has run without a fast embedder on a store that had one: passages it learned have no fast vectors. */
const FAST_MODEL_ABSENT = 'embedding_model_absent';

/**
 * What a search hit reads of a passage (`p`) and its document (`d`), or for a learned fact's passage,
 * of the fact (`m`) and the document it came from (`sd`).
 */
const PASSAGE_HIT_ROWS = `SELECT p.id AS passageId, p.container_id AS containerId, p.document_id AS documentId,
             p.memory_id AS memoryId, d.custom_id AS customId, p.position, p.title, p.content,
             m.source_document_id AS sourceDocumentId, sd.custom_id AS sourceCustomId, m.source_position AS sourcePosition
        FROM passages p LEFT JOIN documents d ON d.id = p.document_id
        LEFT JOIN memories m ON m.id = p.memory_id LEFT JOIN documents sd ON sd.id = m.source_document_id`;

type PassageHitRow = Omit<PassageHit, 'source' | 'score'> & { sourceDocumentId: string | null; sourceCustomId: string | null; sourcePosition: number | null };
type VectorRow = { passageId: number; containerId: string; embedding: Uint8Array };

export function passagesRepository(ctx: SqliteContext): PassageRepository {
  const { db, raw, transaction } = ctx;

  function getEmbeddingModel(tier: VectorTier): EmbeddingModel | null {
    const value = readSetting(db, EMBEDDING_MODEL_KEYS[tier]);
    return value === null ? null : (JSON.parse(value) as EmbeddingModel);
  }

  return {
    /**
     * BM25 ranks in the full-text index alone first: its best `limit × 10` passages of any container
     * are looked up, and those in the container kept. When that leaves `limit` or more, they are
     * exactly the container's best (every passage not looked up ranks below them); otherwise the
     * exact query ranks every match of the container. The first step spares reading the rows of
     * thousands of matches that cannot make the page. (CROSS JOIN keeps SQLite from driving the
     * join from the container's every passage instead.)
     */
    searchPassages(accountId, containerId, query, limit) {
      const match = ftsQuery(query);
      if (!match) return [];
      const quick = raw.query<KeywordHit, [string, number, string, string, number]>(`
        WITH best AS MATERIALIZED (
          SELECT rowid AS id, -bm25(passages_fts, 0.5, 1.0) AS score FROM passages_fts
           WHERE passages_fts MATCH ? ORDER BY score DESC LIMIT ?)
        SELECT best.id AS passageId, best.score AS score
          FROM best CROSS JOIN passages p ON p.id = best.id
         WHERE p.container_id = ? AND p.account_id = ?
         ORDER BY best.score DESC LIMIT ?`).all(match, limit * 10, containerId, accountId, limit);
      if (quick.length >= limit) return quick;
      return raw.query<KeywordHit, [string, string, string, number]>(`
        SELECT p.id AS passageId, -bm25(passages_fts, 0.5, 1.0) AS score
          FROM passages_fts
          CROSS JOIN passages p ON p.id = passages_fts.rowid
         WHERE passages_fts MATCH ? AND p.container_id = ? AND p.account_id = ?
         ORDER BY score DESC
         LIMIT ?`).all(match, containerId, accountId, limit);
    },

    listPassages: (accountId, documentId) => db.select({ position: t.passages.position, title: t.passages.title, content: t.passages.content })
      .from(t.passages).where(and(eq(t.passages.accountId, accountId), eq(t.passages.documentId, documentId)))
      .orderBy(t.passages.position).all(),

    countPassages: () => raw.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n,

    getFactPassage: (memoryId) => db.select({ id: t.passages.id, title: t.passages.title, content: t.passages.content })
      .from(t.passages).where(eq(t.passages.memoryId, memoryId)).get() ?? null,

    getPassageHits(accountId, passageIds) {
      if (passageIds.length === 0) return [];
      return raw.query<PassageHitRow, (string | number)[]>(`
        ${PASSAGE_HIT_ROWS}
         WHERE p.account_id = ? AND p.id IN (${passageIds.map(() => '?').join(',')})`).all(accountId, ...passageIds)
        .map(({ sourceDocumentId, sourceCustomId, sourcePosition, ...hit }) => ({
          ...hit, score: 0,
          // A fact whose document was deleted keeps no source (forgetting clears it); one that never had one has none.
          source: sourceDocumentId ? { documentId: sourceDocumentId, customId: sourceCustomId, position: sourcePosition ?? 0 } : null,
        }));
    },

    storeVectors: (tier, vectors) => transaction(() => insertVectors(ctx, tier, vectors)),

    getEmbeddingModel,

    setEmbeddingModel: (tier, model, now) => transaction(() => {
      const current = getEmbeddingModel(tier);
      if (!model) {
        // The strong tier's refinement finds passages without its vectors by itself.
        if (tier === 'fast' && current) writeSetting(db, FAST_MODEL_ABSENT, '1');
        return false;
      }
      const gaps = tier === 'fast' && takeSetting(db, FAST_MODEL_ABSENT) !== null;
      const same = current?.id === model.id && current.dimensions === model.dimensions;
      if (same && !gaps) return false;
      if (!same) {
        raw.run('DELETE FROM passage_vectors WHERE tier = ?', [tier]);
        writeSetting(db, EMBEDDING_MODEL_KEYS[tier], JSON.stringify(model));
      }
      if (tier === 'fast' && raw.query('SELECT 1 FROM passages LIMIT 1').get()) enqueue(ctx, null, 'reembed', {}, now);
      return true;
    }),

    listVectors: (tier, afterPassageId, limit) => groupVectors(raw.query<VectorRow, [VectorTier, number, number]>(`
      WITH page AS (
        SELECT p.id, p.container_id FROM passages p
         WHERE p.id > ?2 AND EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
         ORDER BY p.id LIMIT ?3)
      SELECT page.id AS passageId, page.container_id AS containerId, v.embedding
        FROM page JOIN passage_vectors v ON v.passage_id = page.id AND v.tier = ?1
       ORDER BY page.id, v.unit`).all(tier, afterPassageId, limit)),

    getVectors(tier, passageIds) {
      if (passageIds.length === 0) return [];
      return groupVectors(raw.query<VectorRow, [VectorTier, string]>(`
        SELECT p.id AS passageId, p.container_id AS containerId, v.embedding
          FROM json_each(?2) ids JOIN passages p ON p.id = ids.value JOIN passage_vectors v ON v.passage_id = p.id AND v.tier = ?1
         ORDER BY p.id, v.unit`).all(tier, JSON.stringify(passageIds)));
    },

    countVectorUnits: (tier, afterPassageId = 0, upToPassageId = Number.MAX_SAFE_INTEGER) => raw.query<{ n: number }, [number, number, VectorTier]>(
      'SELECT count(*) AS n FROM passage_vectors WHERE passage_id > ? AND passage_id <= ? AND tier = ?').get(afterPassageId, upToPassageId, tier)!.n,

    listPassagesWithoutVectors: (tier, afterPassageId, limit) => raw.query<PassageText, [VectorTier, number, number]>(`
      SELECT p.id, p.title, p.content FROM passages p
       WHERE p.id > ?2 AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
       ORDER BY p.id LIMIT ?3`).all(tier, afterPassageId, limit),

    lastPassageId: () => raw.query<{ seq: number }, []>("SELECT seq FROM sqlite_sequence WHERE name = 'passages'").get()?.seq ?? 0,
  };
}

/** Rows of units, ordered by passage then unit, as one entry a passage. */
function groupVectors(rows: VectorRow[]): StoredVectors[] {
  const out: StoredVectors[] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last?.passageId === r.passageId) last.vectors.push(int8Vector(r.embedding));
    else out.push({ passageId: r.passageId, containerId: r.containerId, vectors: [int8Vector(r.embedding)] });
  }
  return out;
}

/**
 * Passages' vectors of each tier, stored int8 as bytea (../stored-vector.ts): no vector extension,
 * each process that searches holds its own in-memory index and follows the change feed
 * (vector-feed.ts). The model each tier's come from is in `settings`.
 */
import type { SQL } from 'bun';
import type { EmbeddingModel, PassageVectors, StoredVectors, VectorRepository, VectorTier } from '../passages';
import { int8Vector, storedVector } from '../stored-vector';
import type { PostgresContext } from './context';
import { readSetting, takeSetting, writeSetting } from './settings-repository';

/** The settings row naming each tier's model (the fast tier's keeps the name it had before tiers). */
const EMBEDDING_MODEL_KEYS: Record<VectorTier, string> = { fast: 'embedding_model', strong: 'embedding_model_strong' };
/** Set once a server has run without a fast embedder on a store that had one: passages it learned have no fast vectors. */
const FAST_MODEL_ABSENT = 'embedding_model_absent';
/** Vector rows a multi-row insert takes at once (four parameters each, within the protocol's 65,535). */
const INSERT_CHUNK = 4_000;

type VectorRow = { passageId: string; containerId: string; embedding: Uint8Array };

export function vectorsRepository({ sql, atomic }: PostgresContext): VectorRepository {
  async function getModel(q: SQL, tier: VectorTier): Promise<EmbeddingModel | null> {
    const value = await readSetting(q, EMBEDDING_MODEL_KEYS[tier]);
    return value === null ? null : (JSON.parse(value) as EmbeddingModel);
  }

  return {
    put: (tier, vectors) => atomic((q) => insertVectors(q, tier, vectors)),

    getModel: (tier) => getModel(sql, tier),

    setModel: (tier, model) =>
      atomic(async (q) => {
        // Locked: processes starting at once with a new model decide one after the other.
        await q`SELECT pg_advisory_xact_lock(hashtext('engram_embedding_model'))`;
        const current = await getModel(q, tier);
        if (!model) {
          // The strong tier's refinement finds passages without its vectors by itself.
          if (tier === 'fast' && current) await writeSetting(q, FAST_MODEL_ABSENT, '1');
          return false;
        }
        const gaps = tier === 'fast' && (await takeSetting(q, FAST_MODEL_ABSENT)) !== null;
        const same = current?.id === model.id && current.dimensions === model.dimensions;
        if (same && !gaps) return false;
        if (!same) {
          await q`DELETE FROM passage_vectors WHERE tier = ${tier}`;
          await writeSetting(q, EMBEDDING_MODEL_KEYS[tier], JSON.stringify(model));
        }
        return true;
      }),

    list: async (tier, afterPassageId, limit) =>
      groupVectors(
        await sql`
      WITH page AS (
        SELECT p.id, p.container_id FROM passages p
         WHERE p.id > ${afterPassageId} AND EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ${tier} AND v.unit = 0)
         ORDER BY p.id LIMIT ${limit})
      SELECT page.id AS passage_id, page.container_id, v.embedding
        FROM page JOIN passage_vectors v ON v.passage_id = page.id AND v.tier = ${tier}
       ORDER BY page.id, v.unit`,
      ),

    async get(tier, passageIds) {
      if (passageIds.length === 0) return [];
      return groupVectors(
        await sql`
        SELECT p.id AS passage_id, p.container_id, v.embedding
          FROM passages p JOIN passage_vectors v ON v.passage_id = p.id AND v.tier = ${tier}
         WHERE p.id = ANY(${passageIds}::bigint[])
         ORDER BY p.id, v.unit`,
      );
    },

    countUnits: async (tier, afterPassageId = 0, upToPassageId = Number.MAX_SAFE_INTEGER) =>
      Number(
        (
          await sql`
      SELECT count(*) AS n FROM passage_vectors WHERE passage_id > ${afterPassageId} AND passage_id <= ${upToPassageId} AND tier = ${tier}`
        )[0].n,
      ),
  };
}

/** Stores (replacing) passages' vectors of one tier in the caller's transaction; see `VectorRepository.put`. */
async function insertVectors(q: SQL, tier: VectorTier, vectors: PassageVectors[]): Promise<number[]> {
  if (vectors.length === 0) return [];
  // Only passages that still exist, held until the commit: one deleted while it was being embedded
  // gets no orphan vector, and none is deleted under this write.
  const live = new Set(
    (await q`SELECT id FROM passages WHERE id = ANY(${vectors.map((p) => p.passageId)}::bigint[]) FOR KEY SHARE`).map(
      (r: { id: string }) => Number(r.id),
    ),
  );
  const kept = vectors.filter((p) => live.has(p.passageId));
  if (kept.length === 0) return [];
  await q`DELETE FROM passage_vectors WHERE tier = ${tier} AND passage_id = ANY(${kept.map((p) => p.passageId)}::bigint[])`;
  const rows = kept.flatMap((p) =>
    p.vectors.map((v, unit) => ({ passageId: p.passageId, tier, unit, embedding: storedVector(v) })),
  );
  for (let i = 0; i < rows.length; i += INSERT_CHUNK)
    await q`INSERT INTO passage_vectors ${q(rows.slice(i, i + INSERT_CHUNK))}`;
  return kept.map((p) => p.passageId);
}

/** Rows of units, ordered by passage then unit, as one entry a passage. */
function groupVectors(rows: VectorRow[]): StoredVectors[] {
  const out: StoredVectors[] = [];
  for (const r of rows) {
    const passageId = Number(r.passageId);
    const last = out.at(-1);
    if (last?.passageId === passageId) last.vectors.push(int8Vector(r.embedding));
    else out.push({ passageId, containerId: r.containerId, vectors: [int8Vector(r.embedding)] });
  }
  return out;
}

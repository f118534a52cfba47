/** Passages' vectors of each tier, stored int8 (vectors.ts), and the model each tier's come from (in `settings`). */
import type { EmbeddingModel, StoredVectors, VectorRepository, VectorTier } from '../passages';
import type { SqliteContext, Synchronous } from './context';
import { readSetting, takeSetting, writeSetting } from './settings-repository';
import { int8Vector } from '../stored-vector';
import { insertVectors } from './vectors';

/** The settings row naming each tier's model (the fast tier's keeps the name it had before tiers). */
const EMBEDDING_MODEL_KEYS: Record<VectorTier, string> = { fast: 'embedding_model', strong: 'embedding_model_strong' };
/** Set once a server has run without a fast embedder on a store that had one: passages it learned have no fast vectors. */
const FAST_MODEL_ABSENT = 'embedding_model_absent';

type VectorRow = { passageId: number; containerId: string; embedding: Uint8Array };

export function vectorsRepository(ctx: SqliteContext): Synchronous<VectorRepository> {
  const { db, raw, atomic } = ctx;

  function getModel(tier: VectorTier): EmbeddingModel | null {
    const value = readSetting(db, EMBEDDING_MODEL_KEYS[tier]);
    return value === null ? null : (JSON.parse(value) as EmbeddingModel);
  }

  return {
    put: (tier, vectors) => atomic(() => insertVectors(ctx, tier, vectors)),

    getModel,

    setModel: (tier, model) =>
      atomic(() => {
        const current = getModel(tier);
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
        return true;
      }),

    list: (tier, afterPassageId, limit) =>
      groupVectors(
        raw
          .query<VectorRow, [VectorTier, number, number]>(`
      WITH page AS (
        SELECT p.id, p.container_id FROM passages p
         WHERE p.id > ?2 AND EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
         ORDER BY p.id LIMIT ?3)
      SELECT page.id AS passageId, page.container_id AS containerId, v.embedding
        FROM page JOIN passage_vectors v ON v.passage_id = page.id AND v.tier = ?1
       ORDER BY page.id, v.unit`)
          .all(tier, afterPassageId, limit),
      ),

    get(tier, passageIds) {
      if (passageIds.length === 0) return [];
      return groupVectors(
        raw
          .query<VectorRow, [VectorTier, string]>(`
        SELECT p.id AS passageId, p.container_id AS containerId, v.embedding
          FROM json_each(?2) ids JOIN passages p ON p.id = ids.value JOIN passage_vectors v ON v.passage_id = p.id AND v.tier = ?1
         ORDER BY p.id, v.unit`)
          .all(tier, JSON.stringify(passageIds)),
      );
    },

    countUnits: (tier, afterPassageId = 0, upToPassageId = Number.MAX_SAFE_INTEGER) =>
      raw
        .query<{ n: number }, [number, number, VectorTier]>(
          'SELECT count(*) AS n FROM passage_vectors WHERE passage_id > ? AND passage_id <= ? AND tier = ?',
        )
        .get(afterPassageId, upToPassageId, tier)!.n,
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

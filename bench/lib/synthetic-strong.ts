/**
 * Strong-tier vectors for a benchmark's store without running the strong model over it: at a
 * million passages refinement takes hours here, and search latency, memory and start-up depend on
 * how many strong units the index holds and how they cluster, not on which model made them. Each
 * passage gets the units refinement would give it (its sentence groups: the fast tier's units less
 * the whole passage, or the whole when it has one), each the fast tier's unit turned into 384
 * dimensions by one fixed random projection, which keeps the fast tier's neighbourhoods. A query's
 * strong vector still comes from the real model, so the strong tier's scores are not meaningful
 * here, and fewer of its candidates clear its similarity floor than in a refined store: figures
 * taken over these vectors measure cost, never quality. Written with SQL on the store's file, as an
 * outside program would (the store's own triggers drop the saved indexes' token).
 */
import { Database } from 'bun:sqlite';
import { join } from 'node:path';
import { storedVector } from '../../src/storage/stored-vector';
import { seeded } from './corpus';

const STRONG_DIMENSIONS = 384;
const PAGE = 2_000;

/** Gives every passage without strong vectors synthetic ones; returns how many passages got them. */
export function fillStrongVectors(dataDir: string): number {
  const db = new Database(join(dataDir, 'engram.db'));
  db.run('PRAGMA busy_timeout = 5000');
  const random = seeded(384);
  let projection: Float32Array | null = null;
  const select = db.query<{ passage_id: number; unit: number; embedding: Uint8Array }, [number, number]>(`
    SELECT v.passage_id, v.unit, v.embedding FROM passage_vectors v
     WHERE v.tier = 'fast' AND v.passage_id IN (
       SELECT p.id FROM passages p WHERE p.id > ?1 AND NOT EXISTS (
         SELECT 1 FROM passage_vectors s WHERE s.passage_id = p.id AND s.tier = 'strong') ORDER BY p.id LIMIT ?2)
     ORDER BY v.passage_id, v.unit`);
  const insert = db.query('INSERT INTO passage_vectors (passage_id, tier, unit, embedding) VALUES (?, ?, ?, ?)');
  let after = 0;
  let filled = 0;
  for (;;) {
    const rows = select.all(after, PAGE);
    if (rows.length === 0) break;
    const byPassage = new Map<number, Int8Array[]>();
    for (const r of rows) {
      const units = byPassage.get(r.passage_id) ?? [];
      units.push(new Int8Array(r.embedding.buffer, r.embedding.byteOffset, r.embedding.byteLength));
      byPassage.set(r.passage_id, units);
    }
    const fastDimensions = rows[0]!.embedding.byteLength;
    projection ??= Float32Array.from({ length: STRONG_DIMENSIONS * fastDimensions }, () => random() * 2 - 1);
    db.transaction(() => {
      for (const [passageId, units] of byPassage) {
        const strong = units.length > 1 ? units.slice(1) : units;
        for (const [i, unit] of strong.entries())
          insert.run(passageId, 'strong', i, storedVector(project(projection!, unit)));
      }
    })();
    filled += byPassage.size;
    after = rows.at(-1)!.passage_id;
  }
  db.close();
  return filled;
}

function project(matrix: Float32Array, unit: Int8Array): Float32Array {
  const out = new Float32Array(STRONG_DIMENSIONS);
  const n = unit.length;
  for (let r = 0; r < STRONG_DIMENSIONS; r++) {
    let sum = 0;
    for (let c = 0; c < n; c++) sum += matrix[r * n + c]! * unit[c]!;
    out[r] = sum;
  }
  return out;
}

/**
 * Records `model` as the strong tier's of the store in `dataDir`, over whatever model it named: the
 * synthetic vectors belong to no model (nor, for a cost benchmark, do vectors of the same model made
 * with other arithmetic), and a server whose strong model has another id than the one recorded
 * (float products before int8's, 9ab62e8) would drop them at start and refine the store while it is
 * measured. Written with SQL, as fillStrongVectors writes.
 */
export function claimStrongVectors(dataDir: string, model: { id: string; dimensions: number }): void {
  const db = new Database(join(dataDir, 'engram.db'));
  db.run('PRAGMA busy_timeout = 5000');
  db.run("UPDATE settings SET value = ? WHERE key = 'embedding_model_strong'", [JSON.stringify(model)]);
  db.close();
}

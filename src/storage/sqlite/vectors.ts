/**
 * The writing of passage vectors (stored as ../stored-vector.ts makes them), and the sqlite-vec extension. The extension is loaded into every
 * connection so that a store made before migration 0010 can drop its old `vec0` table.
 */
import type { Database } from 'bun:sqlite';
import { mkdirSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { extname, join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';
import type { PassageVectors, VectorTier } from '../passages';
import { VECTOR_SNAPSHOT_SETTING } from '../settings';
import { storedVector } from '../stored-vector';
import type { SqliteContext } from './context';

let extensionFile: string | null = null;

/**
 * Loads sqlite-vec into a connection, before migrations run (see the file's opening). From node_modules when run from a checkout; from a file written out of the compiled
 * binary otherwise (SQLite can load an extension only from a real file).
 */
export function loadVectorExtension(db: Database): void {
  if (extensionFile) db.loadExtension(extensionFile);
  else sqliteVec.load(db);
}

/** The extension file in use, when it is not node_modules' (a worker thread is handed it). */
export const vectorExtensionFile = (): string | null => extensionFile;

export function useVectorExtensionFile(path: string | null): void {
  extensionFile = path;
}

/**
 * Writes the binary's embedded extension to the cache directory (once per version) and uses it.
 * Called by the entry file scripts/build.ts generates, which the dead-code check cannot see.
 * @public
 */
export async function materializeVectorExtension(embedded: string, version: string): Promise<void> {
  const dir = join(homedir(), '.cache', 'engram');
  const target = join(dir, `vec0-${version}${extname(embedded)}`);
  const source = Bun.file(embedded);
  const existing = Bun.file(target);
  if (!(await existing.exists()) || existing.size !== source.size) {
    mkdirSync(dir, { recursive: true });
    const partial = `${target}.${process.pid}.tmp`;
    await Bun.write(partial, source);
    renameSync(partial, target); // atomic: two starting servers never load a half-written file
  }
  useVectorExtensionFile(target);
}

/** Stores (replacing) passages' vectors of one tier in the caller's transaction; see `VectorRepository.put`. */
export function insertVectors({ raw }: SqliteContext, tier: VectorTier, vectors: PassageVectors[]): number[] {
  // Only passages that still exist: one deleted while it was being embedded gets no orphan vector.
  const exists = raw.query<{ id: number }, [number]>('SELECT id FROM passages WHERE id = ?');
  const clear = raw.query('DELETE FROM passage_vectors WHERE passage_id = ? AND tier = ?');
  const insert = raw.query('INSERT INTO passage_vectors (passage_id, tier, unit, embedding) VALUES (?, ?, ?, ?)');
  const stored: number[] = [];
  for (const p of vectors) {
    if (!exists.get(p.passageId)) continue;
    clear.run(p.passageId, tier);
    for (const [unit, v] of p.vectors.entries()) insert.run(p.passageId, tier, unit, storedVector(v));
    stored.push(p.passageId);
  }
  // Inserts drop the saved indexes' token here, once a call: a trigger would run for every row,
  // and one cost 3–5 % of learning's throughput (updates and removals have theirs, migration 0017).
  if (stored.length) raw.query('DELETE FROM settings WHERE key = ?').run(VECTOR_SNAPSHOT_SETTING);
  return stored;
}

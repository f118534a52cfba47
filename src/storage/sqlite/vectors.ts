/**
 * The durable copy of passage embeddings: a sqlite-vec `vec0` table whose rowid is the passage id.
 * Its dimension is fixed when made, so a change of embedding model makes it anew.
 */
import type { Database } from 'bun:sqlite';
import { mkdirSync, renameSync } from 'node:fs';
import { homedir } from 'node:os';
import { extname, join } from 'node:path';
import * as sqliteVec from 'sqlite-vec';

export const VECTOR_TABLE = 'vec_passages';

let extensionFile: string | null = null;

/**
 * Loads sqlite-vec into a connection; every connection needs it, as passage deletes touch the
 * table. From node_modules when run from a checkout; from a file written out of the compiled
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

/** Writes the binary's embedded extension to the cache directory (once per version) and uses it. */
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

/** Makes the vector table for `dimensions`, with the trigger that drops a passage's vector with it. */
export function createVectorTable(db: Database, dimensions: number): void {
  db.run(`DROP TRIGGER IF EXISTS passages_vec_ad`);
  db.run(`DROP TABLE IF EXISTS ${VECTOR_TABLE}`);
  db.run(`CREATE VIRTUAL TABLE ${VECTOR_TABLE} USING vec0(embedding float[${dimensions}])`);
  db.run(`CREATE TRIGGER passages_vec_ad AFTER DELETE ON passages BEGIN DELETE FROM ${VECTOR_TABLE} WHERE rowid = old.id; END`);
}

export const vectorBlob = (v: Float32Array): Uint8Array => new Uint8Array(v.buffer, v.byteOffset, v.byteLength);

export const blobVector = (b: Uint8Array): Float32Array =>
  new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength) as ArrayBuffer);

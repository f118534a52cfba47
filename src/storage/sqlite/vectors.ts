/**
 * The durable copy of passage embeddings: a sqlite-vec `vec0` table whose rowid is the passage id.
 * Its dimension is fixed when made, so a change of embedding model makes it anew.
 */
import type { Database } from 'bun:sqlite';
import * as sqliteVec from 'sqlite-vec';

export const VECTOR_TABLE = 'vec_passages';

/** Loads sqlite-vec into a connection; every connection needs it, as passage deletes touch the table. */
export function loadVectorExtension(db: Database): void {
  sqliteVec.load(db);
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

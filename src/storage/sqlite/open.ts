/** Opening the one SQLite file of a data directory, and the lock that keeps it to one server. */
import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { migrate } from './migrations';
import { loadVectorExtension } from './vectors';

export const DB_FILE = 'engram.db';

/** Opens (creating if needed) the store's file with durable settings and applies migrations. */
export function openDatabase(dataDir: string, now: number): Database {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, DB_FILE), { create: true, strict: true });
  // FULL: an acknowledged write survives power loss, not only a crash of the process.
  db.run('PRAGMA journal_mode = WAL');
  db.run('PRAGMA synchronous = FULL');
  db.run('PRAGMA foreign_keys = ON');
  db.run('PRAGMA busy_timeout = 5000');
  loadVectorExtension(db);
  migrate(db, now);
  return db;
}

export class DataDirBusyError extends Error {}

/**
 * Holds an exclusive lock on the data directory for as long as the process lives. It is an
 * SQLite lock on a file of its own, so the OS drops it when the process dies, even by SIGKILL.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = new Database(join(dataDir, 'server.lock'), { create: true });
  try {
    lock.run('PRAGMA locking_mode = EXCLUSIVE');
    lock.run('PRAGMA busy_timeout = 0');
    lock.run('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
    lock.run('DELETE FROM holder');
    lock.run('INSERT INTO holder VALUES (?)', [process.pid]);
  } catch {
    lock.close();
    throw new DataDirBusyError(`Another Engram server is already using ${dataDir}. Stop it first, or pick another --data directory.`);
  }
  return { release: () => lock.close() };
}

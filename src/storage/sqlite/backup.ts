/**
 * Backup and restore of the whole store file. A backup is an online, consistent snapshot taken with
 * `VACUUM INTO` while the server runs; a restore replaces the file while no server holds it.
 */
import { Database } from 'bun:sqlite';
import { closeSync, copyFileSync, existsSync, openSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DB_FILE, lockDataDir } from './open';
import { newerMigrations, recordedMigrations } from './migrations';
import { loadVectorExtension } from './vectors';

export class BackupError extends Error {}

/**
 * Writes a consistent copy of the data directory's store to `file` (which must not exist),
 * readable by its owner only, like the store.
 */
export function backupDatabase(dataDir: string, file: string): void {
  const target = resolve(file);
  if (existsSync(target)) throw new BackupError(`${target} already exists; pick a new file name.`);
  const source = join(dataDir, DB_FILE);
  if (!existsSync(source)) throw new BackupError(`No store in ${dataDir}.`);
  const db = new Database(source, { readonly: true });
  // Made empty and private first: VACUUM INTO fills an empty file, and would make a new one 0644.
  closeSync(openSync(target, 'wx', 0o600));
  try {
    loadVectorExtension(db);
    db.run('PRAGMA busy_timeout = 5000');
    db.run('VACUUM INTO ?', [target]);
  } catch (err) {
    rmSync(target, { force: true });
    throw err;
  } finally {
    db.close();
  }
}

/** Replaces the store with a backup, after checking it is a sound Engram store this version can open. */
export function restoreDatabase(dataDir: string, file: string): void {
  const source = resolve(file);
  if (!existsSync(source)) throw new BackupError(`No file ${source}.`);
  checkBackup(source);
  const lock = lockDataDir(dataDir); // refuses while a server runs on this directory
  try {
    const target = join(dataDir, DB_FILE);
    settle(target);
    const staged = `${target}.restoring`;
    copyFileSync(source, staged);
    renameSync(staged, target);
  } finally {
    lock.release();
  }
}

/**
 * Before the store is replaced, its WAL is written back into it and removed, so that a restore cut
 * short at any point leaves one whole store, the old one or the new, and never the new file beside
 * the old one's WAL ("How To Corrupt An SQLite Database File", 1.3 and 1.4). SQLite removes the -wal
 * and -shm files when its last connection closes; when they stay, another program (an `engram`
 * command, a database browser) has the store open, and replacing the file under it would leave
 * that program on a file nobody else sees (2.4): refused.
 */
function settle(target: string): void {
  const sideFiles = () => ['-wal', '-shm'].map((s) => target + s).filter((f) => existsSync(f));
  if (existsSync(target)) {
    let db: Database | null = null;
    try {
      db = new Database(target);
      db.run('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch (err) {
      const code = (err as { code?: string }).code ?? '';
      if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) throw inUse(target);
      // Not a store SQLite can read: its side files cannot help it, and the backup replaces it.
      db?.close();
      for (const file of sideFiles()) rmSync(file, { force: true });
      return;
    }
    db.close();
    if (sideFiles().length) throw inUse(target);
  }
  for (const file of sideFiles()) rmSync(file, { force: true }); // left beside no store: they belong to none
}

const inUse = (target: string) =>
  new BackupError(
    `Another program has ${target} open (an engram command, or another SQLite client); close it, then restore again.`,
  );

function checkBackup(file: string): void {
  let db: Database | null = null;
  try {
    db = new Database(file, { readonly: true });
    loadVectorExtension(db);
    const integrity = db.query<{ integrity_check: string }, []>('PRAGMA integrity_check').get();
    if (integrity?.integrity_check !== 'ok') throw new BackupError(`${file} is damaged: ${integrity?.integrity_check}`);
    const newer = newerMigrations(recordedMigrations(db));
    if (newer.length)
      throw new BackupError(`${file} comes from a newer Engram (migrations ${newer.join(', ')}); upgrade first.`);
  } catch (err) {
    if (err instanceof BackupError) throw err;
    throw new BackupError(`${file} is not an Engram backup: ${(err as Error).message}`);
  } finally {
    db?.close();
  }
}

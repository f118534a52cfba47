/**
 * Opening the one SQLite file of a data directory, the lock that keeps it to one server, and the
 * privacy of both: the store holds the person's memory and the server's secrets, so its files are
 * readable by their owner only.
 */
import { Database } from 'bun:sqlite';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statfsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { IMPORTS_DIR, INDEX_DIR } from '../../data-dir';
import { isStorageFull, ServiceError } from '../../errors';
import { createLogger } from '../../log';
import { migrate } from './migrations';
import { loadVectorExtension } from './vectors';

export const DB_FILE = 'engram.db';
const LOCK_FILE = 'server.lock';
/** The files SQLite keeps beside a database; it makes them with the database file's mode. */
const SIDE_SUFFIXES = ['-wal', '-shm', '-journal'];
/** The names Engram itself keeps in a data directory (a restore stages its copy as `engram.db.restoring`; data-dir.ts names the folders). */
const ENGRAM_FILE = new RegExp(
  String.raw`^((engram\.db(\.restoring)?|server\.lock)(-wal|-shm|-journal)?|${INDEX_DIR}|${IMPORTS_DIR})$`,
);

/** The store's page cache, in KiB: the keyword index's sizes table of a few million passages fits. */
export const PAGE_CACHE_KIB = 64 * 1024;

/**
 * Opens (creating if needed) the store's file with durable settings and applies migrations.
 * Throws a `storage_full` ServiceError when the disk has no room for that, and NewerStoreError
 * for a store a newer release has migrated.
 */
export function openDatabase(dataDir: string, now: number): Database {
  let db: Database | null = null;
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    db = new Database(privateFile(join(dataDir, DB_FILE)), { create: true, strict: true });
    // FULL: an acknowledged write survives power loss, not only a crash of the process.
    db.run('PRAGMA journal_mode = WAL');
    db.run('PRAGMA synchronous = FULL');
    db.run('PRAGMA foreign_keys = ON');
    // Deleted rows and freed pages are overwritten with zeros: what the owner forgets leaves no bytes behind.
    db.run('PRAGMA secure_delete = ON');
    db.run('PRAGMA busy_timeout = 5000');
    // Keyword search reads the size of every row that holds a query word (BM25's length
    // normalization), in rowid order across the keyword index's sizes table (12 bytes a passage,
    // 11 MiB at a million): through SQLite's default 2 MiB cache each search read it all from the
    // OS again, ~2,800 pages at a million passages (docs/performance.md, issue 40). The cache fills
    // only as far as pages are read.
    db.run(`PRAGMA cache_size = -${PAGE_CACHE_KIB}`);
    loadVectorExtension(db);
    migrate(db, now);
    return db;
  } catch (err) {
    db?.close();
    throw isStorageFull(err) ? diskFull(dataDir) : err;
  }
}

export class DataDirBusyError extends Error {}

/**
 * Holds an exclusive lock on the data directory for as long as the process lives. It is an
 * SQLite lock on a file of its own, so the OS drops it when the process dies, even by SIGKILL.
 * Taking it also makes the directory private (see `privateDataDir`). Throws DataDirBusyError
 * when another server holds it, and a `storage_full` ServiceError when the disk has no room.
 */
export function lockDataDir(dataDir: string): { release(): void } {
  let lock: Database | null = null;
  try {
    privateDataDir(dataDir);
    lock = new Database(privateFile(join(dataDir, LOCK_FILE)), { create: true });
    lock.run('PRAGMA locking_mode = EXCLUSIVE');
    lock.run('PRAGMA busy_timeout = 0');
    lock.run('CREATE TABLE IF NOT EXISTS holder (pid INTEGER)');
    lock.run('DELETE FROM holder');
    lock.run('INSERT INTO holder VALUES (?)', [process.pid]);
  } catch (err) {
    lock?.close();
    if (isStorageFull(err)) throw diskFull(dataDir);
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED')) {
      throw new DataDirBusyError(
        `Another Engram server is already using ${dataDir}. Stop it first, or pick another --data directory.`,
      );
    }
    throw err;
  }
  const held = lock;
  return { release: () => held.close() };
}

/** Opening needs a few writes (the lock, migrations): on a full disk it says so, with what is free. */
function diskFull(dataDir: string): ServiceError {
  const disk = existsSync(dataDir) ? statfsSync(dataDir) : null; // null: the directory itself could not be made
  const free = disk ? ` (${disk.bavail * disk.bsize} bytes free)` : '';
  return new ServiceError(
    'storage_full',
    `The disk holding ${dataDir} is full${free}, so Engram cannot open its store. Free some space, then try again.`,
  );
}

/**
 * Makes `path` (if missing) and the SQLite files beside it readable and writable by their owner
 * only. SQLite would make a new database 0644; it gives its -wal, -shm and -journal files the
 * database file's mode, so creating the file first covers them. Files an older Engram made 0644
 * are tightened, when they are ours to change.
 *
 * A file that exists is never opened here, only changed by its path: closing any descriptor of a
 * file drops every POSIX lock the process holds on it, SQLite's among them ("How To Corrupt An
 * SQLite Database File", 2.2). The learning thread opens the store while the server's connection is
 * live; had it opened and closed the file, the server would hold no lock on its own store, and the
 * next outside client (the `sqlite3` shell) would delete the WAL the server still writes to.
 */
function privateFile(path: string): string {
  try {
    closeSync(openSync(path, 'wx', 0o600)); // only a file that did not exist: no connection has it open
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const file of [path, ...SIDE_SUFFIXES.map((s) => path + s)]) {
    if (existsSync(file) && openToOthers(file)) chmodSync(file, 0o600);
  }
  return path;
}

/** Readable or writable by group or others, and owned by this process's user (so it may chmod it). */
function openToOthers(path: string): boolean {
  const { mode, uid } = statSync(path);
  return (mode & 0o077) !== 0 && uid === process.getuid?.();
}

/**
 * Makes the data directory (0700), or checks one that already exists: one open to other users is
 * tightened to 0700 when it holds only Engram's files and is this user's, so it is Engram's own; one
 * that holds other files too (a home directory, a shared folder) is left as it is, with a warning,
 * since its other files are not ours to hide. Either way Engram's files in it are 0600.
 */
function privateDataDir(dataDir: string): void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const mode = statSync(dataDir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  const log = createLogger('warn');
  const was = mode.toString(8).padStart(4, '0');
  if (openToOthers(dataDir) && readdirSync(dataDir).every((name) => ENGRAM_FILE.test(name))) {
    chmodSync(dataDir, 0o700);
    log.warn('the data directory was open to other users; it is now private (0700)', { data_dir: dataDir, was });
  } else {
    log.warn(
      "the data directory is open to other users and is not Engram's alone (it holds other files, or another user owns it), so it was left as it is: Engram's files in it are private (0600), but other users can list them. Make it private with chmod 700, or use a directory of its own",
      { data_dir: dataDir, mode: was },
    );
  }
}

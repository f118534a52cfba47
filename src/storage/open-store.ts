/**
 * The store a configuration names: PostgreSQL at ENGRAM_DATABASE_URL (`--database`), shared by
 * several processes, or else the SQLite file in the data directory, the default, which one process
 * owns. Every command and the server open their store here.
 */
import type { Config } from '../config';
import type { Logger } from '../log';
import type { Store } from './store';
import type { SharedLimits } from './shared-limits';
import type { VectorFeed } from './vector-feed';

export type StoreEngine = 'sqlite' | 'postgres';

/** A database URL fit to print: its password left out. */
export function shownUrl(url: string): string {
  const shown = new URL(url);
  if (shown.password) shown.password = '***';
  return shown.toString();
}

/** The PostgreSQL server did not answer, or refused the connection: said for the person, without the password. */
export class DatabaseUnreachableError extends Error {}

export interface OpenedStore {
  store: Store;
  engine: StoreEngine;
  /** What other processes change in the stored vectors (PostgreSQL); null where one process owns the store. */
  feed: VectorFeed | null;
  /** The per-credential and per-account limits every process shares (PostgreSQL); null where one process counts them in memory. */
  limits: SharedLimits | null;
}

/**
 * Opens the configured store, migrated to this release. Throws NewerStoreError for a store a newer
 * release migrated, and DatabaseUnreachableError when PostgreSQL does not answer or refuses us.
 */
export async function openStore(
  config: Config,
  now: number,
  /**
   * `connections`: the pool's size, for a process that does not answer requests
   * (ENGRAM_DATABASE_CONNECTIONS unless told). `keywordReader`: the server's log; SQLite then runs
   * keyword search on a thread of its own (sqlite/keyword-reader.ts).
   */
  options: { connections?: number; keywordReader?: Logger } = {},
): Promise<OpenedStore> {
  if (!config.databaseUrl) {
    const [{ openDatabase }, { openSqliteStore }] = await Promise.all([
      import('./sqlite/open'),
      import('./sqlite/sqlite-store'),
    ]);
    return {
      store: openSqliteStore(openDatabase(config.dataDir, now), { keywordReader: options.keywordReader }),
      engine: 'sqlite',
      feed: null,
      limits: null,
    };
  }
  const { openPostgresStore } = await import('./postgres/postgres-store');
  try {
    const store = await openPostgresStore(config.databaseUrl, {
      now,
      max: options.connections ?? config.databaseConnections,
      feedKept: config.feedKeepCommits,
    });
    return { store, engine: 'postgres', feed: store.vectorFeed, limits: store.limits };
  } catch (err) {
    const { code, errno } = err as { code?: string; errno?: string };
    // The connection failed, or the server refused the role, its password or the database's name.
    if ((code?.startsWith('ERR_POSTGRES_') && code !== 'ERR_POSTGRES_SERVER_ERROR') || /^(28|3D)/.test(errno ?? '')) {
      throw new DatabaseUnreachableError(
        `The database at ${shownUrl(config.databaseUrl)} cannot be used: ${(err as Error).message}.`,
      );
    }
    throw err;
  }
}

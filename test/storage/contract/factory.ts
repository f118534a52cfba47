/**
 * What the repository contract suite runs against: a way to make an empty store of one engine. Each
 * engine gives one factory, and `contract.ts` runs the same cases on each.
 */
import { openPostgresStore, type PostgresStore } from '../../../src/storage/postgres/postgres-store';
import { openDatabase } from '../../../src/storage/sqlite/open';
import { openSqliteStore } from '../../../src/storage/sqlite/sqlite-store';
import type { Store } from '../../../src/storage/store';
import type { TestPostgres } from '../../helpers/postgres';
import { scratchDir } from '../../helpers/scratch';

export interface OpenedStore {
  store: Store;
  /** The folder of the store's files, which a harness sweeps for secrets; absent when its data are no files of ours. */
  dir?: string;
  /**
   * Another connection to the same data, as a second thread or process has (the learning worker,
   * a learner process): what it commits, the first sees.
   */
  connect(): Promise<Store>;
  /** Closes every connection made. */
  close(): Promise<void>;
}

export interface StoreFactory {
  /** The engine's name, in the suite's titles. */
  name: string;
  /** A new, empty store (migrated), of its own. */
  open(): Promise<OpenedStore>;
}

/** A real SQLite file in a temporary directory, opened as the server opens it. */
export const sqliteFactory: StoreFactory = {
  name: 'SQLite',
  async open() {
    const dir = scratchDir();
    const stores = [openSqliteStore(openDatabase(dir, Date.now()))];
    return {
      store: stores[0]!,
      dir,
      async connect() {
        const store = openSqliteStore(openDatabase(dir, Date.now()));
        stores.push(store);
        return store;
      },
      async close() {
        for (const store of stores) await store.close();
      },
    };
  },
};

/** A database of its own on a real PostgreSQL server (test/helpers/postgres.ts), opened as a process of the server opens it. */
export function postgresFactory(
  server: TestPostgres,
): StoreFactory & { open(): Promise<OpenedStore & { store: PostgresStore }> } {
  return {
    name: 'PostgreSQL',
    async open() {
      const url = await server.createDatabase();
      const stores = [await openPostgresStore(url, { max: 4 })];
      return {
        store: stores[0]!,
        async connect() {
          const store = await openPostgresStore(url, { max: 4 });
          stores.push(store);
          return store;
        },
        async close() {
          for (const store of stores) await store.close();
        },
      };
    },
  };
}

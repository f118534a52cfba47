/**
 * The Store over one SQLite file: one repository per aggregate (./<aggregate>-repository.ts) over a
 * shared connection, written synchronously as bun:sqlite is, and given the Store's promises here.
 * Drizzle for plain rows; hand-written SQL where SQLite needs it (FTS5, vectors, json_each
 * batches), each place saying why.
 */
import type { Database } from 'bun:sqlite';
import type { PassageRemoval } from '../passage-removals';
import type { Repositories, Store, Transaction } from '../store';
import { eachMethodThrough } from '../each-method';
import { accessLogRepository } from './access-log-repository';
import { accountsRepository, sessionsRepository } from './accounts-repository';
import { outsideUse } from '../transaction-scope';
import type { Logger } from '../../log';
import { ConnectionLock, settle } from './connection-lock';
import { containersRepository } from './containers-repository';
import { type SqliteContext, type Synchronous, sqliteContext } from './context';
import { credentialsRepository } from './credentials-repository';
import { documentsRepository } from './documents-repository';
import { factsRepository } from './facts-repository';
import { forgettingRepository } from './forgetting-repository';
import { idempotencyRepository } from './idempotency-repository';
import { importsRepository } from './imports-repository';
import { jobsRepository } from './jobs-repository';
import { KeywordReader } from './keyword-reader';
import { oauthRepository } from './oauth-repository';
import { passagesRepository } from './passages-repository';
import { rulesRepository } from './rules-repository';
import { settingsRepository } from './settings-repository';
import { sharesRepository } from './shares-repository';
import { usageRepository } from './usage-repository';
import { vectorsRepository } from './vectors-repository';

/** Every repository, as SQLite implements it. */
type SqliteRepositories = { [K in keyof Repositories]: Synchronous<Repositories[K]> };

function sqliteRepositories(ctx: SqliteContext): SqliteRepositories {
  const containers = containersRepository(ctx);
  const documents = documentsRepository(ctx);
  const facts = factsRepository(ctx);
  return {
    accounts: accountsRepository(ctx),
    sessions: sessionsRepository(ctx),
    containers,
    credentials: credentialsRepository(ctx, containers),
    shares: sharesRepository(ctx),
    settings: settingsRepository(ctx),
    oauth: oauthRepository(ctx),
    documents,
    passages: passagesRepository(ctx),
    vectors: vectorsRepository(ctx),
    facts,
    forgetting: forgettingRepository(ctx, { containers, documents, facts }),
    rules: rulesRepository(ctx),
    usage: usageRepository(ctx),
    accessLog: accessLogRepository(ctx),
    jobs: jobsRepository(ctx),
    idempotency: idempotencyRepository(ctx),
    importOrigins: importsRepository(ctx),
  };
}

/** The Store over SQLite, with the connection itself for SQLite's own upkeep. */
export interface SqliteStore extends Store {
  /**
   * Runs synchronous work on the connection once no transaction holds it, as a statement of the
   * store would (the keyword index rebuild, storage/sqlite/fts-rebuild.ts).
   */
  withConnection<T>(work: (raw: Database) => T): Promise<T>;
}

/**
 * The Store over an open database (see `openDatabase`); closing the store closes the database.
 * Calls on the store run through the connection's lock (connection-lock.ts); calls through a
 * transaction's `tx` run at once, and only inside that transaction. With `keywordReader` (the
 * server's log), keyword search outside a transaction runs on a thread of its own
 * (keyword-reader.ts), beside the vector scans.
 */
export function openSqliteStore(raw: Database, options: { keywordReader?: Logger } = {}): SqliteStore {
  const ctx = sqliteContext(raw);
  const repositories = sqliteRepositories(ctx);
  const lock = new ConnectionLock();
  const dataVersion = () => raw.query<{ data_version: number }, []>('PRAGMA data_version').get()!.data_version;

  // Inside its transaction, and that transaction still open: an error SQLite answers by rolling the
  // whole transaction back (a full disk, say) ends it, and what followed would otherwise commit alone.
  const isOpen = () => lock.isInside() && raw.inTransaction;
  const inside = <T>(statement: () => T): Promise<T> => (isOpen() ? settle(statement) : Promise.reject(outsideUse()));
  const tx: Transaction = {
    ...eachMethodThrough(repositories, inside),
    transaction: (fn) => savepoint(fn),
    commitsByOthers: () => inside(dataVersion),
  };

  const { statements } = ctx;
  /** A transaction inside the open one: its writes roll back alone when `fn` throws. */
  async function savepoint<T>(fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (!isOpen()) throw outsideUse();
    statements.savepoint();
    try {
      const result = await fn(tx);
      statements.release();
      return result;
    } catch (err) {
      if (raw.inTransaction) {
        statements.rollbackToSavepoint();
        statements.release();
      }
      throw err;
    }
  }

  /** IMMEDIATE for writes, DEFERRED for a snapshot's reads (see `TransactionStatements.begin`). */
  const within = <T>(mode: 'IMMEDIATE' | 'DEFERRED', fn: (tx: Transaction) => Promise<T>): Promise<T> =>
    lock.hold(async () => {
      statements.begin(mode);
      try {
        const result = await fn(tx);
        statements.commit();
        ctx.ended(true);
        return result;
      } catch (err) {
        if (raw.inTransaction) statements.rollback();
        ctx.ended(false);
        throw err;
      }
    });

  const outside = eachMethodThrough(repositories, (statement) => lock.run(statement));
  const reader = options.keywordReader ? new KeywordReader(raw.filename, options.keywordReader) : null;
  if (reader) {
    const inThread = outside.passages.search;
    outside.passages.search = (accountId, containerIds, query, limit) =>
      reader.search({ accountId, containerIds, query, limit }, () => inThread(accountId, containerIds, query, limit));
  }

  return {
    ...outside,
    transaction: (fn) => within('IMMEDIATE', fn),
    /** In WAL mode the first read fixes the snapshot, and writers on other connections go on meanwhile. */
    snapshot: (fn) => within('DEFERRED', fn),
    commitsByOthers: () => lock.run(dataVersion),
    ping: () =>
      lock.run(() => {
        raw.query('SELECT 1').get();
      }),
    close: async () => {
      await reader?.close();
      await lock.run(() => {
        statements.finalize();
        raw.close();
      });
    },
    withConnection: (work) => lock.run(() => work(raw)),
    keywordSearchesHere: reader ? () => reader.takeBack() : undefined,
    removals: {
      since: (after, limit) =>
        lock.run(() =>
          raw
            .query<PassageRemoval, [number, number]>(
              'SELECT seq, passage_id AS passageId FROM removed_passages WHERE seq > ? ORDER BY seq LIMIT ?',
            )
            .all(after, limit),
        ),
      prune: (seq) =>
        lock.run(() => {
          raw.query('DELETE FROM removed_passages WHERE seq <= ?').run(seq);
        }),
    },
  };
}

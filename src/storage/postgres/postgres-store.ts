/**
 * The Store over PostgreSQL, the shared store of several processes (API replicas, learners): one
 * repository per aggregate (./<aggregate>-repository.ts) over Bun's built-in client and its pool.
 * A transaction holds one pooled connection from its BEGIN to its COMMIT, and a transaction inside
 * it is a savepoint on that connection; everything else runs on whichever connection is free.
 */
import { SQL } from 'bun';
import { StoreUnavailable } from '../../errors';
import { eachMethodThrough } from '../each-method';
import type { Repositories, Store, Transaction } from '../store';
import { outsideUse, type ScopeToken, selfWait, TransactionScope } from '../transaction-scope';
import type { VectorFeed } from '../vector-feed';
import { accessLogRepository } from './access-log-repository';
import { accountsRepository, sessionsRepository } from './accounts-repository';
import { containersRepository } from './containers-repository';
import type { PostgresContext } from './context';
import { credentialsRepository } from './credentials-repository';
import { documentsRepository } from './documents-repository';
import { factsRepository } from './facts-repository';
import { forgettingRepository } from './forgetting-repository';
import { idempotencyRepository } from './idempotency-repository';
import { importsRepository } from './imports-repository';
import { jobsRepository } from './jobs-repository';
import { migrate } from './migrations';
import { oauthRepository } from './oauth-repository';
import { passagesRepository } from './passages-repository';
import { rulesRepository } from './rules-repository';
import { settingsRepository } from './settings-repository';
import { sharesRepository } from './shares-repository';
import { usageRepository } from './usage-repository';
import { vectorsRepository } from './vectors-repository';
import { feedHead, postgresVectorFeed } from './vector-feed';
import { postgresSharedLimits } from './shared-limits';
import type { SharedLimits } from '../shared-limits';

/** The tables a forgetting deletes from, vacuumed once it commits (see `PostgresStore.scrubbed`). */
const FORGETTING_TABLES = 'passages, passage_keywords, passage_vectors, documents, memories, memory_history';

function postgresRepositories(ctx: PostgresContext, scrub: () => void): Repositories {
  return {
    accounts: accountsRepository(ctx),
    sessions: sessionsRepository(ctx),
    containers: containersRepository(ctx),
    credentials: credentialsRepository(ctx),
    shares: sharesRepository(ctx),
    settings: settingsRepository(ctx),
    oauth: oauthRepository(ctx),
    documents: documentsRepository(ctx),
    passages: passagesRepository(ctx),
    vectors: vectorsRepository(ctx),
    facts: factsRepository(ctx),
    forgetting: forgettingRepository(ctx, scrub),
    rules: rulesRepository(ctx),
    usage: usageRepository(ctx),
    accessLog: accessLogRepository(ctx),
    jobs: jobsRepository(ctx),
    idempotency: idempotencyRepository(ctx),
    importOrigins: importsRepository(ctx),
  };
}

export interface PostgresStore extends Store {
  /** What every process's vector index follows: the stored vectors' changes, in commit order. */
  vectorFeed: VectorFeed;
  /** The per-credential limiter's counts and the accounts' turn slots, shared by every process. */
  limits: SharedLimits;
  /**
   * Resolves once the VACUUM that forgettings asked for has run: the deleted rows' index entries
   * are gone and their space is free for reuse (docs/decisions.md says what that leaves).
   */
  scrubbed(): Promise<void>;
}

export interface PostgresStoreOptions {
  /** Connections in the pool (10 unless told: ENGRAM_DATABASE_CONNECTIONS). */
  max?: number;
  /** The vector feed's newest commits kept when it is pruned (FEED_KEPT unless told: ENGRAM_FEED_KEEP_COMMITS). */
  feedKept?: number;
  /** How long a call outside a transaction may wait for the database before it is refused as unavailable (10 s unless told). */
  deadlineMs?: number;
  /** The time recorded for migrations applied now. */
  now?: number;
}

/**
 * Connects to the database at `url` (postgres://…), applies the migrations it lacks, and returns
 * the Store over it. Throws NewerStoreError for a database a newer release migrated, and the
 * driver's error when the database cannot be reached.
 */
export async function openPostgresStore(url: string, options: PostgresStoreOptions = {}): Promise<PostgresStore> {
  // A database that does not answer within seconds is down, for the requests waiting on it: they are refused, never left hanging.
  const pool = new SQL({
    url,
    max: options.max ?? 10,
    connectionTimeout: 5,
    transform: SQL.camel,
    connection: { application_name: 'engram' },
  });
  // The turns' slots are held on a connection of their own (shared-limits.ts), made at the first turn.
  const locks = new SQL({ url, max: 1, connectionTimeout: 5, connection: { application_name: 'engram turns' } });
  const deadlineMs = options.deadlineMs ?? 10_000;
  try {
    await migrate(pool, options.now ?? Date.now());
  } catch (err) {
    await Promise.all([pool.close(), locks.close()]);
    throw err;
  }
  const scope = new TransactionScope();

  let scrubbing: Promise<void> | null = null;
  let again = false;
  /** One VACUUM at a time; forgettings while it runs ask for one more, after it. */
  function scrub(): void {
    if (scrubbing) {
      again = true;
      return;
    }
    scrubbing = (async () => {
      do {
        again = false;
        // Best effort, as SQLite's WAL truncation: autovacuum gets to these tables later anyway.
        await pool.unsafe(`VACUUM (INDEX_CLEANUP ON) ${FORGETTING_TABLES}`).catch(() => {});
      } while (again);
      scrubbing = null;
    })();
  }

  /** Repositories over a transaction's (or savepoint's) connection, usable only inside it. */
  function over(connection: SQL, token: ScopeToken, held: (() => void)[]): Transaction {
    const ctx: PostgresContext = {
      sql: connection,
      atomic: (fn) => fn(connection),
      afterCommit: (fn) => held.push(fn),
    };
    const guard = <T>(call: () => Promise<T>): Promise<T> =>
      scope.isInside(token) ? call() : Promise.reject(outsideUse());
    return {
      ...eachMethodThrough<Promise<unknown>>(postgresRepositories(ctx, scrub), guard),
      transaction: (fn) =>
        guard(async () => {
          const inner: (() => void)[] = [];
          const nested = scope.open();
          const result = await (connection as SQL & { savepoint: SQL['begin'] }).savepoint((sp) =>
            scope.run(nested, () => fn(over(sp, nested, inner))),
          );
          held.push(...inner); // a savepoint rolled back drops what it held
          return result as Awaited<typeof result>;
        }),
      commitsByOthers: () => guard(() => feedHead(connection)),
    };
  }

  /** A transaction of its own on a pooled connection, then the work its forgettings held for after the commit. */
  async function within<T>(mode: string, fn: (tx: Transaction) => Promise<T>): Promise<T> {
    if (scope.isInsideOpen()) throw selfWait();
    const held: (() => void)[] = [];
    const token = scope.open();
    const result = await pool.begin(mode, (connection) => scope.run(token, () => fn(over(connection, token, held))));
    for (const work of held) work();
    return result as T;
  }

  const ctx: PostgresContext = { sql: pool, atomic: (fn) => pool.begin(fn) as never, afterCommit: (fn) => fn() };
  const outside = <T>(call: () => Promise<T>): Promise<T> =>
    scope.isInsideOpen() ? Promise.reject(selfWait()) : answered(call(), deadlineMs);
  return {
    ...eachMethodThrough<Promise<unknown>>(postgresRepositories(ctx, scrub), outside),
    transaction: (fn) => answered(within('read write', fn), null),
    snapshot: (fn) => answered(within('isolation level repeatable read read only', fn), null),
    commitsByOthers: () => outside(() => feedHead(pool)),
    ping: () =>
      outside(async () => {
        await pool`SELECT 1`;
      }),
    vectorFeed: postgresVectorFeed(pool, options.feedKept),
    limits: postgresSharedLimits(pool, locks),
    scrubbed: async () => {
      while (scrubbing) await scrubbing;
    },
    async close() {
      while (scrubbing) await scrubbing;
      await Promise.all([pool.close(), locks.close()]);
    },
  };
}

/**
 * `work`'s result, or StoreUnavailable when the database cannot be reached, drops the connection,
 * is shutting down, or (with a deadline) has not answered in time. Inside a transaction only the
 * transaction as a whole is watched: it may run long, and fails as a whole.
 */
function answered<T>(work: Promise<T>, deadlineMs: number | null): Promise<T> {
  const translated = work.catch((err) => {
    throw unreachable(err) ? new StoreUnavailable(`the database does not answer: ${(err as Error).message}`) : err;
  });
  if (deadlineMs === null) return translated;
  let timer: Timer | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new StoreUnavailable(`the database did not answer within ${deadlineMs} ms`)),
      deadlineMs,
    );
  });
  return Promise.race([translated, late]).finally(() => clearTimeout(timer));
}

/** Bun's connection failures, and the server's SQLSTATEs for a connection lost or refused (class 08, 57P0x shutting down, 53300 too many connections). */
function unreachable(err: unknown): boolean {
  const { code, errno } = (err ?? {}) as { code?: string; errno?: string };
  if (
    code?.startsWith('ERR_POSTGRES_CONNECTION') ||
    code === 'ERR_POSTGRES_IDLE_TIMEOUT' ||
    code === 'ERR_POSTGRES_LIFETIME_TIMEOUT'
  )
    return true;
  return typeof errno === 'string' && (/^08/.test(errno) || /^57P0[1-3]$/.test(errno) || errno === '53300');
}

/**
 * The Store: everything operations know about storage, one repository per aggregate
 * (src/storage/<aggregate>.ts) under its own name (`store.documents.get(...)`, `store.jobs.claim(...)`),
 * each implemented per engine (src/storage/sqlite/). Every method returns a promise, so an engine
 * over the network fits behind the same interfaces. Every method that reads or writes a person's
 * data takes their account id and never reaches outside it.
 */
import type { AccessLogRepository } from './access-log';
import type { AccountRepository, SessionRepository } from './accounts';
import type { ContainerRepository } from './containers';
import type { CredentialRepository } from './credentials';
import type { DocumentRepository } from './documents';
import type { FactRepository } from './facts';
import type { ForgettingRepository } from './forgetting';
import type { IdempotencyRepository } from './idempotency';
import type { ImportOriginRepository } from './imports';
import type { JobRepository } from './jobs';
import type { OAuthRepository } from './oauth';
import type { PassageRemovals } from './passage-removals';
import type { PassageRepository, VectorRepository } from './passages';
import type { RuleRepository } from './rules';
import type { SettingsRepository } from './settings';
import type { ShareRepository } from './shares';
import type { UsageRepository } from './usage';

// The row types, where operations have always imported them from.
export type * from './access-log';
export type * from './accounts';
export type * from './containers';
export type * from './credentials';
export type * from './documents';
export type * from './facts';
export type * from './forgetting';
export type * from './idempotency';
export type * from './imports';
export type * from './jobs';
export type * from './oauth';
export type * from './passages';
export type * from './rules';
export type * from './settings';
export type * from './shares';
export type * from './usage';

/** The repositories, one per aggregate. */
export interface Repositories {
  accounts: AccountRepository;
  sessions: SessionRepository;
  containers: ContainerRepository;
  credentials: CredentialRepository;
  shares: ShareRepository;
  settings: SettingsRepository;
  oauth: OAuthRepository;
  documents: DocumentRepository;
  passages: PassageRepository;
  vectors: VectorRepository;
  facts: FactRepository;
  forgetting: ForgettingRepository;
  rules: RuleRepository;
  usage: UsageRepository;
  accessLog: AccessLogRepository;
  jobs: JobRepository;
  idempotency: IdempotencyRepository;
  importOrigins: ImportOriginRepository;
}

/**
 * What writes go through: the store itself, or the `tx` of an open transaction. Code that writes
 * across aggregates takes one of these, so it runs inside its caller's transaction when there is
 * one and opens its own otherwise.
 */
export interface Transaction extends Repositories {
  /**
   * Runs `fn` in one transaction: every write made through its `tx` commits together, or none
   * does when `fn` throws (the error is thrown on). Called on a `tx`, it nests: a failure inside
   * rolls back only its own writes. While it is open, calls on the store itself from elsewhere (other
   * requests) wait for it to end, and a call on the store from inside `fn` is refused (it would
   * wait for itself): use `tx`. Hold it only across store work, never across a network call or
   * a model: everyone else's writes wait meanwhile.
   */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  /**
   * A number that changes whenever another connection (the learning thread's, another process's)
   * commits a change to the stored vectors (SQLite: any change at all), for the saved search
   * indexes' check that nothing changed under them.
   */
  commitsByOthers(): Promise<number>;
}

export interface Store extends Transaction {
  /**
   * Runs `fn`'s reads on one consistent snapshot of the store, without holding back other
   * connections' writers (an export while the server runs). Writes belong in `transaction`.
   */
  snapshot<T>(fn: (tx: Repositories) => Promise<T>): Promise<T>;
  /** Resolves once the store answers a query; rejects (StoreUnavailable on a store over the network) when it does not. */
  ping(): Promise<void>;
  /** Closes the store once the transaction open on it, if any, has ended. */
  close(): Promise<void>;
  /**
   * Where one server owns the store (SQLite), the passages any program deleted, for its in-memory
   * indexes to drop; absent on a shared store, whose vector feed carries them.
   */
  readonly removals?: PassageRemovals;
  /**
   * Where keyword search runs on a thread of its own (SQLite's keyword reader), runs on the caller's
   * thread the searches that thread has not begun: a search whose own work is done then never waits
   * on a thread that waits for a core. Absent elsewhere.
   */
  readonly keywordSearchesHere?: () => void;
}

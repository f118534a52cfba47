/**
 * The Store: everything operations know about storage, one repository per aggregate
 * (src/storage/<aggregate>.ts), each implemented per engine (src/storage/sqlite/). Every method
 * that reads or writes a person's data takes their account id and never reaches outside it.
 */
import type { AccountRepository } from './accounts';
import type { ContainerRepository } from './containers';
import type { CredentialRepository } from './credentials';
import type { DocumentRepository } from './documents';
import type { ShareRepository } from './shares';
import type { FactRepository } from './facts';
import type { ForgettingRepository } from './forgetting';
import type { IdempotencyRepository } from './idempotency';
import type { ImportOriginRepository } from './imports';
import type { JobRepository } from './jobs';
import type { OAuthRepository } from './oauth';
import type { PassageRepository } from './passages';
import type { RuleRepository } from './rules';
import type { SettingsRepository } from './settings';
import type { UsageRepository } from './usage';
import type { AccessLogRepository } from './access-log';

// The row types, where operations have always imported them from.
export type * from './accounts';
export type * from './containers';
export type * from './credentials';
export type * from './documents';
export type * from './shares';
export type * from './facts';
export type * from './forgetting';
export type * from './idempotency';
export type * from './imports';
export type * from './jobs';
export type * from './oauth';
export type * from './passages';
export type * from './rules';
export type * from './settings';
export type * from './usage';
export type * from './access-log';

export interface Transactions {
  /** Runs `fn` in one transaction: every write of one operation commits together or not at all. */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `fn`'s reads on one consistent snapshot of the store, without holding back writers (an
   * export while the server runs). Writes belong in `transaction`.
   */
  snapshot<T>(fn: () => T): T;
  /** A number that changes whenever another connection (the learning thread's, a command's) commits to the store. */
  commitsByOthers(): number;
  close(): void;
}

export interface Store extends Transactions, AccountRepository, ContainerRepository, CredentialRepository, ShareRepository,
  SettingsRepository, OAuthRepository, DocumentRepository, PassageRepository, FactRepository, ForgettingRepository, RuleRepository,
  UsageRepository, JobRepository, IdempotencyRepository, ImportOriginRepository, AccessLogRepository {}

/**
 * The Store over one SQLite file: one repository per aggregate (./<aggregate>-repository.ts) over a
 * shared connection, composed into one object. Drizzle for plain rows; hand-written SQL where
 * SQLite needs it (FTS5, vectors, json_each batches), each place saying why.
 */
import type { Database } from 'bun:sqlite';
import type { Store } from '../store';
import { accountsRepository } from './accounts-repository';
import { containersRepository } from './containers-repository';
import { sqliteContext } from './context';
import { credentialsRepository } from './credentials-repository';
import { documentsRepository } from './documents-repository';
import { sharesRepository } from './shares-repository';
import { factsRepository } from './facts-repository';
import { forgettingRepository } from './forgetting-repository';
import { idempotencyRepository } from './idempotency-repository';
import { importsRepository } from './imports-repository';
import { jobsRepository } from './jobs-repository';
import { oauthRepository } from './oauth-repository';
import { passagesRepository } from './passages-repository';
import { rulesRepository } from './rules-repository';
import { settingsRepository } from './settings-repository';
import { usageRepository } from './usage-repository';
import { accessLogRepository } from './access-log-repository';

/** The Store over an open database (see `openDatabase`); closing the store closes the database. */
export function openSqliteStore(raw: Database): Store {
  const ctx = sqliteContext(raw);
  const { transaction, snapshot, commitsByOthers, close } = ctx;
  const containers = containersRepository(ctx);
  const documents = documentsRepository(ctx);
  const facts = factsRepository(ctx);
  return {
    transaction, snapshot, commitsByOthers, close,
    ...accountsRepository(ctx),
    ...containers,
    ...credentialsRepository(ctx),
    ...sharesRepository(ctx),
    ...settingsRepository(ctx),
    ...oauthRepository(ctx),
    ...documents,
    ...passagesRepository(ctx),
    ...facts,
    ...forgettingRepository(ctx, { ...containers, ...documents, ...facts }),
    ...rulesRepository(ctx),
    ...usageRepository(ctx),
    ...accessLogRepository(ctx),
    ...jobsRepository(ctx, documents),
    ...idempotencyRepository(ctx),
    ...importsRepository(ctx),
  };
}

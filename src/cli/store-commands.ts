/**
 * What the CLI's store commands (owner, containers, keys, export, import) do: each opens the store,
 * the services every operation runs with (services.ts) and calls operations as the owner of the
 * chosen account, at the command line. The words they print are the command table's.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { z } from 'zod';
import type { Caller } from '../auth/caller';
import { accountsFor, createAccount, startSession } from '../auth/owner';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { newTraceId } from '../ids';
import type { ImportFormatName } from '../importers/format-labels';
import { createLogger } from '../log';
import * as ops from '../operations';
import { exportMemory } from '../operations/import-export/export-memory';
import { importMemory, type ImportSource } from '../operations/import-export/import-memory';
import type { ImportHooks } from '../operations/import-export/import-pass';
import type { ImportSummary } from '../operations/import-export/import-summary';
import { contextFor, invoke, type Operation, type StoreContext } from '../operations/operation';
import { createServices } from '../services';
import { openStore } from '../storage/open-store';
import { DB_FILE } from '../storage/sqlite/open';
import type { Store } from '../storage/store';
import { UsageError } from './usage-error';

/**
 * Refuses a data directory that holds no store: a mistyped --data must not leave an empty store
 * behind it (only `owner create`, `serve` and `restore` make one).
 */
export function requireStore(config: Config): void {
  if (!config.databaseUrl && !existsSync(join(config.dataDir, DB_FILE))) {
    throw new UsageError(
      `No Engram store in ${config.dataDir}. Check --data (or ENGRAM_DATA_DIR), or make one there with \`engram owner create\`.`,
    );
  }
}

async function withStore<T>(
  config: Config,
  fn: (store: Store) => Promise<T>,
  may: 'open' | 'create' = 'open',
): Promise<T> {
  if (may === 'open') requireStore(config);
  const { store } = await openStore(config, systemClock.now(), { connections: 2 });
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

/**
 * Runs `fn` with the operations' context of the account's owner at the command line: the one named
 * by --email, or the only one there is. Search is by keyword alone (a command loads no model), and
 * what the command queues is learned by the server, which looks at the queue on its own.
 */
function asOwner<T>(config: Config, email: string | undefined, fn: (ctx: StoreContext) => Promise<T>): Promise<T> {
  return withStore(config, async (store) => {
    const services = await createServices(store, config, { log: createLogger('silent') });
    try {
      return await fn(contextFor(services, await ownerOf(store, email), newTraceId()));
    } finally {
      await services.close();
    }
  });
}

/**
 * The owner a command acts for, at the command line (no session): of the account named by --email,
 * or of the only one there is.
 */
async function ownerOf(store: Store, email: string | undefined): Promise<Caller> {
  const accounts = await accountsFor(store, email || undefined);
  if (email && accounts.length === 0) throw new UsageError(`No account for ${email}.`);
  if (accounts.length === 0)
    throw new UsageError('No account yet: run `engram owner create --email you@example.org` first.');
  if (accounts.length > 1) throw new UsageError('Several accounts exist: say which with --email.');
  return { kind: 'owner', accountId: accounts[0]!.id, sessionId: null };
}

const run = <I extends z.ZodType, O extends z.ZodType>(
  config: Config,
  email: string | undefined,
  op: Operation<I, O>,
  input: unknown,
): Promise<z.output<O>> => asOwner(config, email, (ctx) => invoke(op, ctx, input));

export function ownerCreate(config: Config, email: string, password: string): Promise<string> {
  return withStore(config, async (store) => (await createAccount(store, systemClock, email, password)).id, 'create');
}

export function ownerToken(config: Config, email: string | undefined): Promise<string> {
  return withStore(
    config,
    async (store) => (await startSession(store, systemClock, (await ownerOf(store, email)).accountId)).token,
  );
}

export async function containersCreate(
  config: Config,
  email: string | undefined,
  name: string,
  description: string | undefined,
): Promise<string> {
  return (await run(config, email, ops.createContainer, { name, description })).id;
}

export async function containersList(config: Config, email: string | undefined): Promise<string> {
  const { containers } = await run(config, email, ops.listContainers, {});
  return containers.map((c) => [c.id, c.name, c.description].join('\t')).join('\n');
}

export interface KeyArgs {
  name: string;
  level: string;
  containers?: string[];
  all?: boolean;
  profile?: boolean;
  expiresInDays?: number;
}

export async function keysList(config: Config, email: string | undefined): Promise<string> {
  const keys = await run(config, email, ops.listKeys, {});
  return (['active', 'expired', 'revoked'] as const)
    .flatMap((state) => keys[state].map((k) => [k.id, k.name, k.level, state].join('\t')))
    .join('\n');
}

export async function keysRevoke(config: Config, email: string | undefined, keyId: string): Promise<void> {
  await run(config, email, ops.revokeKey, { key_id: keyId });
}

export async function keysCreate(config: Config, email: string | undefined, args: KeyArgs): Promise<string> {
  const minted = await run(config, email, ops.createKey, {
    name: args.name,
    level: args.level,
    containers: args.containers,
    all_views: args.all,
    profile: args.profile,
    expires_in_days: args.expiresInDays,
  });
  return minted.key;
}

/** Writes the account's export, a JSON line at a time (see the export operation). */
export function exportFile(config: Config, email: string | undefined, write: (line: string) => void): Promise<void> {
  return asOwner(config, email, (ctx) => exportMemory(ctx, (line) => write(JSON.stringify(line))));
}

export interface ImportArgs {
  source: ImportSource;
  format: ImportFormatName;
  container?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
}

export function importFile(
  config: Config,
  email: string | undefined,
  args: ImportArgs,
  hooks: ImportHooks,
): Promise<ImportSummary> {
  return asOwner(config, email, (ctx) =>
    importMemory(
      ctx,
      args.source,
      { format: args.format, container: args.container, dry_run: args.dryRun, skip_invalid: args.skipInvalid },
      hooks,
    ),
  );
}

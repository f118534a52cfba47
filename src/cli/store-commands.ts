/**
 * What the CLI's store commands (owner, containers, keys, export, import) do. They work on the store
 * directly, through the same operations as the API, acting as the owner of the chosen account.
 */
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnBudget } from '../agent/turn-budget';
import type { z } from 'zod';
import type { Caller } from '../auth/caller';
import { createAccount, startSession } from '../auth/owner';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { createLogger } from '../log';
import * as ops from '../operations';
import { contextFor, invoke, type Operation, type Services } from '../operations/operation';
import { RateLimiter } from '../operations/rate-limiter';
import { UsageRecorder } from '../operations/usage-recorder';
import { AccessRecorder } from '../operations/access-recorder';
import { SearchEngine } from '../search/search-engine';
import { DB_FILE, openDatabase } from '../storage/sqlite/open';
import { openSqliteStore } from '../storage/sqlite/sqlite-store';
import type { Store } from '../storage/store';
import { exportAccount } from './transfer';
import { type ImportHooks, importMemory, type ImportSource } from '../operations/import-memory';
import type { ImportSummary } from '../operations/import-summary';
import type { ImportFormatName } from '../importers/format-labels';
import { UsageError } from './usage-error';

/**
 * Refuses a data directory that holds no store: a mistyped --data must not leave an empty store
 * behind it (only `owner create`, `serve` and `restore` make one).
 */
export function requireStore(config: Config): void {
  if (!existsSync(join(config.dataDir, DB_FILE))) {
    throw new UsageError(`No Engram store in ${config.dataDir}. Check --data (or ENGRAM_DATA_DIR), or make one there with \`engram owner create\`.`);
  }
}

function withStore<T>(config: Config, fn: (store: Store) => Promise<T>, may: 'open' | 'create' = 'open'): Promise<T> {
  if (may === 'open') requireStore(config);
  const store = openSqliteStore(openDatabase(config.dataDir, systemClock.now()));
  return fn(store).finally(() => store.close());
}

/** The account a command acts for: the one named by --email, or the only one there is. */
function ownerOf(store: Store, email: string | undefined): Caller {
  if (email) {
    const account = store.getAccountByEmail(email);
    if (!account) throw new UsageError(`No account for ${email}.`);
    return { kind: 'owner', accountId: account.id, sessionId: 'cli' };
  }
  const accounts = store.listAccounts();
  if (accounts.length === 0) throw new UsageError('No account yet: run `engram owner create --email you@example.org` first.');
  if (accounts.length > 1) throw new UsageError('Several accounts exist: say which with --email.');
  return { kind: 'owner', accountId: accounts[0]!.id, sessionId: 'cli' };
}

/** The context an operation runs in for the command: the owner's, over the command's own store (the server learns what it queues). */
function cliContext(store: Store, caller: Caller) {
  const log = createLogger('silent');
  const services: Services = {
    store, clock: systemClock, log, limiter: new RateLimiter(systemClock, Number.MAX_SAFE_INTEGER),
    usage: new UsageRecorder(store), accessLog: new AccessRecorder(store, systemClock, log), search: SearchEngine.open(store, log, { fast: null, strong: null }, tmpdir()), notifyQueued: () => {},
    model: null, turns: new TurnBudget(),
  };
  return contextFor(services, caller, 'cli');
}

function run<I extends z.ZodType, O extends z.ZodType>(store: Store, caller: Caller, op: Operation<I, O>, input: unknown): Promise<z.output<O>> {
  return invoke(op, cliContext(store, caller), input);
}

export function ownerCreate(config: Config, email: string, password: string): Promise<string> {
  return withStore(config, async (store) => (await createAccount(store, systemClock, email, password)).id, 'create');
}

export function ownerToken(config: Config, email: string | undefined): Promise<string> {
  return withStore(config, async (store) => startSession(store, systemClock, ownerOf(store, email).accountId).token);
}

export function containersCreate(config: Config, email: string | undefined, name: string, description: string | undefined): Promise<string> {
  return withStore(config, async (store) => (await run(store, ownerOf(store, email), ops.createContainer, { name, description })).id);
}

export function containersList(config: Config, email: string | undefined): Promise<string> {
  return withStore(config, async (store) => {
    const { containers } = await run(store, ownerOf(store, email), ops.listContainers, {});
    return containers.map((c) => [c.id, c.name, c.description].join('\t')).join('\n');
  });
}

export interface KeyArgs {
  name: string;
  level: string;
  containers?: string[];
  all?: boolean;
  profile?: boolean;
  expiresInDays?: number;
}

export function keysCreate(config: Config, email: string | undefined, args: KeyArgs): Promise<string> {
  return withStore(config, async (store) => {
    const minted = await run(store, ownerOf(store, email), ops.createKey, {
      name: args.name, level: args.level, containers: args.containers, all_views: args.all, profile: args.profile,
      expires_in_days: args.expiresInDays,
    });
    return minted.key;
  });
}

export function exportMemory(config: Config, email: string | undefined, write: (line: string) => void): Promise<void> {
  return withStore(config, async (store) => exportAccount(store, ownerOf(store, email).accountId, systemClock.now(), write));
}

export interface ImportArgs {
  source: ImportSource;
  format: ImportFormatName;
  container?: string;
  dryRun?: boolean;
}

export function importFile(config: Config, email: string | undefined, args: ImportArgs, hooks: ImportHooks): Promise<ImportSummary> {
  return withStore(config, (store) => importMemory(cliContext(store, ownerOf(store, email)), args.source,
    { format: args.format, container: args.container, dry_run: args.dryRun }, hooks));
}

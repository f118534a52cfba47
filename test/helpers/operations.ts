/**
 * The operation tier's world: the services every operation runs with (src/services.ts, as the
 * server and the CLI make them) over a real store of the engine a StoreFactory makes (SQLite by
 * default: a real file in a temporary directory), with no HTTP server, no learning thread and no
 * embedding model (search is by keyword alone). Callers are made the way the doors make them: a
 * credential minted by an operation or by the OAuth grant code, then resolved from its bearer string
 * by `authenticate`.
 */
import { createHash } from 'node:crypto';
import type { z } from 'zod';
import type { Caller } from '../../src/auth/caller';
import { authenticate } from '../../src/auth/credentials';
import { exchangeCode, issueCode } from '../../src/auth/oauth-codes';
import { createAccount, startSession } from '../../src/auth/owner';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import type { Embedder } from '../../src/embedders/embedder';
import { LearningRunner } from '../../src/learning/runner';
import { createLogger } from '../../src/log';
import { SCOPE } from '../../src/oauth/metadata';
import { registerClient } from '../../src/oauth/register';
import * as ops from '../../src/operations/index';
import { ServiceError } from '../../src/errors';
import { contextFor, invoke, type Operation, type StoreContext } from '../../src/operations/operation';
import { createServices, type OpenServices } from '../../src/services';
import { MCP_PATH } from '../../src/site';
import type { Store } from '../../src/storage/store';
import { type StoreFactory, sqliteFactory } from '../storage/contract/factory';
import { scratchDir } from './scratch';
import { sweepThenRemove } from './secret-sweep';

export interface Harness {
  services: OpenServices;
  /** The store the services run on. */
  store: Store;
  clock: ManualClock;
  /** The owner's session, as a caller. */
  owner: Caller;
  /** The account's containers by name. */
  containers: Record<string, string>;
  /** Calls an operation through `invoke`, as REST and MCP do. */
  run<I extends z.ZodType, O extends z.ZodType>(op: Operation<I, O>, caller: Caller, input: unknown): Promise<any>;
  /** The context a door makes for the caller, for the operations a door calls directly (import, export). */
  context(caller: Caller): StoreContext;
  /** A developer key minted by the owner through create_key, as its caller. */
  key(grant: {
    level: 'read' | 'suggest' | 'manage';
    containers?: string[];
    all_views?: boolean;
    profile?: boolean;
    name?: string;
  }): Promise<Caller>;
  /** A consent token from the OAuth grant (registration, code, exchange), as its caller. */
  consent(containers: string[], profile: boolean, clientName?: string): Promise<Caller>;
  /** The same, as the bearer string a client sends (issued for MCP at the harness's address). */
  consentToken(containers: string[], profile: boolean, clientName?: string): Promise<string>;
  /**
   * Learns every queued document as the learning thread would, without a language model: passages
   * split and keyword-indexed, with the fast tier's vectors when given its `embedder`, no facts.
   */
  learn(embedder?: Embedder): Promise<void>;
  /** Another account on the same store: its owner and its containers by name. */
  otherAccount(email: string, containerNames: string[]): Promise<{ owner: Caller; containers: Record<string, string> }>;
  close(): Promise<void>;
}

/** The refusal a call ended in, or null when it succeeded; an error that is no refusal is thrown on. */
export const refused = (call: Promise<unknown>): Promise<ServiceError | null> =>
  call.then(
    () => null,
    (e: unknown) => (e instanceof ServiceError ? e : Promise.reject(e)),
  );

/**
 * The address the harness's world is known by: its consent tokens are issued for MCP there, and
 * test/helpers/app.ts serves its doors in process as if listening there (nothing does).
 */
export const HARNESS_PORT = 9;
const HARNESS_MCP_RESOURCE = `http://127.0.0.1:${HARNESS_PORT}${MCP_PATH}`;

const noUrls = (): never => {
  throw new Error('the operation tier reads no URL: add documents by their content');
};

/** The engine the operation tier runs on: SQLite unless a preload chose another (see `useStoreFactory`). */
let defaultFactory: StoreFactory = sqliteFactory;

/**
 * Runs every harness opened from now on over `factory`'s stores: a preload (`bun test --preload
 * <file> test/operations`) that starts another engine calls it, and the same tests run on that engine.
 * Returns the factory it replaces.
 */
export function useStoreFactory(factory: StoreFactory): StoreFactory {
  const replaced = defaultFactory;
  defaultFactory = factory;
  return replaced;
}

/**
 * A new store made by `factory` with one account, whose owner made the containers named through
 * create_container. `env` sets the configuration's other variables (a limiter's rate, say).
 */
export async function openHarness(
  containerNames: string[],
  factory: StoreFactory = defaultFactory,
  env: Record<string, string> = {},
): Promise<Harness> {
  const opened = await factory.open();
  const { store } = opened;
  const clock = new ManualClock();
  const config = loadConfig({ ENGRAM_DATA_DIR: scratchDir(), ENGRAM_EMBEDDER: 'none', ...env });
  const services = await createServices(store, config, { clock, log: createLogger('silent') });
  let traces = 0;
  const context = (caller: Caller) => contextFor(services, caller, `tr_test${++traces}`);
  const run: Harness['run'] = (op, caller, input) => invoke(op, context(caller), input);
  const resolve = (bearer: string) => authenticate(store, clock, bearer);

  const account = async (email: string, names: string[]) => {
    const made = await createAccount(store, clock, email, 'correct horse battery staple');
    const owner = await resolve((await startSession(store, clock, made.id)).token);
    const containers: Record<string, string> = {};
    for (const name of names) containers[name] = (await run(ops.createContainer, owner, { name })).id;
    return { owner, containers };
  };
  const { owner, containers } = await account('owner@example.org', containerNames);

  /** A consent token from the OAuth grant, as its bearer string. */
  const consentToken = async (containerIds: string[], profile: boolean, clientName = 'Test app') => {
    const redirectUri = `http://127.0.0.1:${HARNESS_PORT}/callback`;
    const registered = await registerClient(store, clock, { redirect_uris: [redirectUri], client_name: clientName });
    if (!registered.ok) throw new Error(registered.description);
    const clientId = registered.body.client_id as string;
    const verifier = 'v'.repeat(43);
    const code = await issueCode(store, clock, {
      accountId: owner.accountId,
      clientId,
      redirectUri,
      codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
      resource: HARNESS_MCP_RESOURCE,
      scope: SCOPE,
      containerIds,
      profile,
    });
    const issued = await exchangeCode(store, clock, {
      code,
      clientId,
      redirectUri,
      codeVerifier: verifier,
      resource: null,
      clientName,
      ttlDays: 30,
    });
    return issued.token;
  };

  return {
    services,
    store,
    clock,
    owner,
    containers,
    run,
    context,
    otherAccount: account,
    async learn(embedder) {
      await new LearningRunner({
        store,
        clock,
        log: createLogger('silent'),
        embedder: embedder ?? null,
        readUrl: noUrls,
        onIndexed: () => {},
      }).drain();
    },
    key: async (grant) => resolve((await run(ops.createKey, owner, { name: 'test key', ...grant })).key),
    consent: async (containerIds, profile, clientName) =>
      resolve(await consentToken(containerIds, profile, clientName)),
    consentToken,
    async close() {
      await services.close();
      await opened.close();
      // The store holds what the minted keys, tokens and sessions left: searched for any raw one, as every harness's is.
      if (opened.dir) sweepThenRemove({ harness: 'bun:operations', stores: [opened.dir] }, opened.dir);
    },
  };
}

/**
 * The operation tier's world: the real services over a real SQLite store in a temporary directory,
 * with no HTTP server, no learning worker and no embedding model (search is keyword-only). Callers
 * are made the way the doors make them: a credential minted by an operation or by the OAuth grant
 * code, then resolved from its bearer string by `authenticate`.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TurnBudget } from '../../src/agent/turn-budget';
import type { Caller } from '../../src/auth/caller';
import { authenticate } from '../../src/auth/credentials';
import { exchangeCode, issueCode } from '../../src/auth/grants';
import { createAccount, startSession } from '../../src/auth/owner';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createEmbedders } from '../../src/learning/create-embedder';
import { createLogger } from '../../src/log';
import { SCOPE } from '../../src/oauth/metadata';
import { registerClient } from '../../src/oauth/register';
import { AccessRecorder } from '../../src/operations/access-recorder';
import * as ops from '../../src/operations/index';
import { contextFor, invoke, type Operation, type Services } from '../../src/operations/operation';
import { RateLimiter } from '../../src/operations/rate-limiter';
import { UsageRecorder } from '../../src/operations/usage-recorder';
import { SearchEngine } from '../../src/search/search-engine';
import { openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';
import { sweepThenRemove } from '../helpers/secret-sweep';

export interface Harness {
  services: Services;
  clock: ManualClock;
  /** The owner's session, as a caller. */
  owner: Caller;
  /** The account's containers by name. */
  containers: Record<string, string>;
  /** Calls an operation through `invoke`, as REST and MCP do. */
  run(op: Operation, caller: Caller, input: unknown): Promise<any>;
  /** A developer key minted by the owner through create_key, as its caller. */
  key(grant: { level: 'read' | 'suggest' | 'manage'; containers?: string[]; all_views?: boolean; profile?: boolean }): Promise<Caller>;
  /** A consent token from the OAuth grant (registration, code, exchange), as its caller. */
  consent(containers: string[], profile: boolean): Promise<Caller>;
  close(): Promise<void>;
}

export async function openHarness(containerNames: string[]): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-operations-'));
  const clock = new ManualClock();
  const log = createLogger('silent');
  const store = openSqliteStore(openDatabase(dir, clock.now()));
  const config = loadConfig({ ENGRAM_DATA_DIR: dir, ENGRAM_EMBEDDER: 'none' });
  const usage = new UsageRecorder(store);
  const accessLog = new AccessRecorder(store, clock, log);
  // As startServer composes them (src/server.ts), less HTTP and the learning worker.
  const services: Services = {
    store, clock, log, usage, accessLog, search: await SearchEngine.open(store, log, await createEmbedders(config, 'search'), dir),
    limiter: new RateLimiter(clock, config.rateLimitPerMin), notifyQueued: () => {}, model: null, turns: new TurnBudget(),
  };
  let traces = 0;
  const run: Harness['run'] = (op, caller, input) => invoke(op, contextFor(services, caller, `tr_test${++traces}`), input);
  const resolve = (bearer: string) => authenticate(store, clock, bearer);

  const account = await createAccount(store, clock, 'owner@example.org', 'correct horse battery staple');
  const owner = await resolve((await startSession(store, clock, account.id)).token);
  const containers: Record<string, string> = {};
  for (const name of containerNames) containers[name] = (await run(ops.createContainer, owner, { name })).id;

  return {
    services, clock, owner, containers, run,
    key: async (grant) => resolve((await run(ops.createKey, owner, { name: 'test key', ...grant })).key),
    async consent(containerIds, profile) {
      const redirectUri = 'http://127.0.0.1:9/callback';
      const registered = await registerClient(store, clock, { redirect_uris: [redirectUri], client_name: 'Test app' });
      if (!registered.ok) throw new Error(registered.description);
      const clientId = registered.body.client_id as string;
      const verifier = 'v'.repeat(43);
      const code = await issueCode(store, clock, {
        accountId: account.id, clientId, redirectUri, codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        resource: 'http://127.0.0.1:9/mcp', scope: SCOPE, containerIds, profile,
      });
      const issued = await exchangeCode(store, clock, {
        code, clientId, redirectUri, codeVerifier: verifier, resource: null, clientName: 'Test app', ttlDays: 30,
      });
      return resolve(issued.token);
    },
    async close() {
      await usage.flush();
      await accessLog.stop();
      await services.search.close();
      await store.close();
      // The store holds what the minted keys, tokens and sessions left: searched for any raw one, as every harness's is.
      sweepThenRemove({ harness: 'bun:operations', stores: [dir] }, dir);
    },
  };
}

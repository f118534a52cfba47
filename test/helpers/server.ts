/**
 * Starts the real server in process on an ephemeral 127.0.0.1 port over a temporary data
 * directory, with a clock the test can move, and gives a small HTTP client for driving it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, startSession } from '../../src/auth/owner';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server';

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  /** Stops the server and removes its data directory. */
  close(): Promise<void>;
  /** Stops and starts again on the same data directory (and the same clock), with any options changed. */
  restart(changes?: Pick<TestServerOptions, 'env'>): Promise<TestServer>;
}

export interface TestServerOptions {
  dataDir?: string;
  clock?: ManualClock;
  env?: Record<string, string>;
  manualLearning?: boolean;
  /** Stand-ins for DNS and the network when the server fetches OAuth client metadata documents. */
  clientMetadata?: ServerOptions['clientMetadata'];
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'engram-test-'));
  const clock = options.clock ?? new ManualClock();
  const config = loadConfig({ ENGRAM_DATA_DIR: dataDir, ENGRAM_PORT: '0', ENGRAM_LOG_LEVEL: 'silent', ...options.env });
  const server = await startServer(config, { clock, manualLearning: options.manualLearning ?? true, clientMetadata: options.clientMetadata });
  return {
    ...server,
    clock,
    dataDir,
    async close() {
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    async restart(changes = {}) {
      await server.stop();
      return startTestServer({ ...options, ...changes, dataDir, clock });
    },
  };
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/** One HTTP call; `token` goes in the bearer header when given. */
export async function call<T = any>(server: { url: string }, method: string, path: string, token?: string | null, body?: unknown): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Makes an account directly in the store and returns its owner session token. */
export async function makeOwner(server: RunningServer, email = `owner-${crypto.randomUUID()}@example.org`): Promise<{ token: string; email: string; password: string }> {
  const { store, clock } = server.services;
  const password = 'correct horse battery staple';
  const account = await createAccount(store, clock, email, password);
  return { token: startSession(store, clock, account.id).token, email, password };
}

export async function makeContainer(server: { url: string }, owner: string, name: string): Promise<string> {
  const res = await call(server, 'POST', '/v1/containers', owner, { name });
  if (res.status !== 201) throw new Error(`container: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export async function makeKey(server: { url: string }, owner: string, grant: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const res = await call(server, 'POST', '/v1/api-keys', owner, { name: 'test key', ...grant });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: res.body.key };
}

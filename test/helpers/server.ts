/**
 * Starts the real server in process on an ephemeral 127.0.0.1 port over a temporary data
 * directory, with a clock the test can move, and gives a small HTTP client for driving it. The
 * server logs at debug into a file beside the data directory; close() sweeps both for secrets
 * (test/helpers/secret-sweep.ts) before removing them.
 */
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccount, startSession } from '../../src/auth/owner';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createLogger } from '../../src/log';
import { type RunningServer, type ServerOptions, startServer } from '../../src/server';
import { sweepThenRemove } from './secret-sweep';

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  /** The PostgreSQL database its store is in, or null: the SQLite file in its data directory. */
  database: string | null;
  /** The server's debug log of this start (one file per start, in `<dataDir>.logs/`). */
  logFile: string;
  /**
   * Stops the server (if still running), sweeps its data directory and logs for secrets, and
   * removes them. Throws SecretLeakError on a finding, leaving the files for inspection.
   */
  close(): Promise<void>;
  /** Stops and starts again on the same data directory (and the same clock), with any options changed. */
  restart(changes?: Pick<TestServerOptions, 'env' | 'manualLearning'>): Promise<TestServer>;
}

export interface TestServerOptions {
  dataDir?: string;
  clock?: ManualClock;
  env?: Record<string, string>;
  manualLearning?: boolean;
  /** False: a replica of a shared store, which learns nothing itself (serve --learning off). */
  learning?: boolean;
  /** The PostgreSQL database the server's store is in (kept across restarts); see `storeTestServersIn`. */
  database?: string;
  /** Stand-ins for DNS and the network when the server fetches OAuth client metadata documents. */
  clientMetadata?: ServerOptions['clientMetadata'];
}

let starts = 0;

/** Makes each test server's store a new PostgreSQL database, or null: the SQLite file in its data directory. */
let newDatabase: (() => Promise<string>) | null = null;

/**
 * Where test servers keep their stores from now on, unless a test names ENGRAM_DATABASE_URL itself:
 * a preload that runs the suites on PostgreSQL (postgres-preload.ts) gives each server a database.
 */
export function storeTestServersIn(make: (() => Promise<string>) | null): void {
  newDatabase = make;
}
/** Servers started and not yet closed, with the test file that started them. */
const open = new Map<TestServer, string>();

/**
 * Closes (so sweeps and removes) every test server a test left open; run once after the whole
 * suite by test/helpers/hygiene-preload.ts. Returns the test files that left one open.
 */
export async function closeLeftovers(): Promise<string[]> {
  // One stopped and then replaced by another start on its directory is closed through that one.
  const left = [...open].filter(([server]) => existsSync(server.dataDir));
  open.clear();
  const errors: unknown[] = [];
  for (const [server] of left) await server.close().catch((err) => errors.push(err));
  if (errors.length) throw errors[0];
  return left.map(([, where]) => where);
}

function caller(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  const frame = frames.find((f) => !f.includes('/test/helpers/') && f.includes('/test/')) ?? frames[2] ?? '';
  return frame.replace(/^\s*at\s+/, '').replace(/^.*\((.*)\)$/, '$1');
}

export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'engram-test-'));
  const logDir = `${dataDir}.logs`;
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `server-${++starts}.log`);
  // Buffered: one file write per 64 KiB rather than one a line, so logging every request at debug
  // costs the suite next to nothing. Lines after the end are dropped (the file may be swept and gone).
  const sink = Bun.file(logFile).writer({ highWaterMark: 64 * 1024 });
  let ended = false;
  const endLog = async () => {
    ended = true;
    await sink.end();
  };
  const write = (line: string) => void (ended || sink.write(`${line}\n`));
  const clock = options.clock ?? new ManualClock();
  // The config stays silent: it also sets the level of the learning worker thread (when not
  // manual), which writes to standard error. The main thread logs through `log`, into the file.
  // The fast embedding tier alone unless a test asks for more: the strong tier's refinement has
  // tests of its own (test/e2e/learning/refinement.test.ts), and a transformer per server would
  // slow every other suite for nothing it checks.
  const database =
    options.database ?? (options.env?.ENGRAM_DATABASE_URL || !newDatabase ? undefined : await newDatabase());
  const config = loadConfig({
    ENGRAM_DATA_DIR: dataDir,
    ENGRAM_PORT: '0',
    ENGRAM_LOG_LEVEL: 'silent',
    ENGRAM_EMBEDDER: 'fast',
    ...(database ? { ENGRAM_DATABASE_URL: database } : {}),
    ...options.env,
  });
  let server: RunningServer;
  try {
    server = await startServer(config, {
      clock,
      manualLearning: options.manualLearning ?? true,
      learning: options.learning,
      clientMetadata: options.clientMetadata,
      log: createLogger('debug', write),
    });
  } catch (err) {
    await endLog();
    throw err;
  }
  let stopped: Promise<void> | null = null;
  const stop = () => (stopped ??= server.stop().finally(endLog));
  const started: TestServer = {
    ...server,
    clock,
    dataDir,
    database: config.databaseUrl,
    logFile,
    stop,
    async close() {
      open.delete(started);
      await stop();
      // Every start on this directory left its log in logDir: all are swept with the store.
      sweepThenRemove({ harness: 'bun:test-server', stores: [dataDir], logs: [logDir] }, dataDir, logDir);
    },
    async restart(changes = {}) {
      open.delete(started);
      await stop();
      return startTestServer({ ...options, ...changes, dataDir, clock, database });
    },
  };
  open.set(started, caller());
  return started;
}

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

/**
 * One HTTP call; `token` goes in the bearer header when given. Over the network, or through the
 * server's own `fetch` when it has one (an app answering in process: test/helpers/app.ts).
 */
export async function call<T = any>(
  server: { url: string; fetch?: typeof fetch },
  method: string,
  path: string,
  token?: string | null,
  body?: unknown,
): Promise<Answer<T>> {
  const headers: Record<string, string> = {};
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const res = await (server.fetch ?? fetch)(`${server.url}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {}
  return { status: res.status, body: parsed as T, headers: res.headers };
}

/** Makes an account directly in the store and returns its owner session token. */
export async function makeOwner(
  server: RunningServer,
  email = `owner-${crypto.randomUUID()}@example.org`,
): Promise<{ token: string; email: string; password: string }> {
  const { store, clock } = server.services;
  const password = 'correct horse battery staple';
  const account = await createAccount(store, clock, email, password);
  return { token: (await startSession(store, clock, account.id)).token, email, password };
}

export async function makeContainer(server: { url: string }, owner: string, name: string): Promise<string> {
  const res = await call(server, 'POST', '/v1/containers', owner, { name });
  if (res.status !== 201) throw new Error(`container: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.id;
}

export async function makeKey(
  server: { url: string },
  owner: string,
  grant: Record<string, unknown>,
): Promise<{ id: string; key: string }> {
  const res = await call(server, 'POST', '/v1/api-keys', owner, { name: 'test key', ...grant });
  if (res.status !== 201) throw new Error(`key: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.id, key: res.body.key };
}

/** Adds a document through `server` and waits until its learning thread has learned it; returns the document's id. */
export async function addAndLearn(
  server: TestServer,
  key: string,
  container: string,
  content: string,
): Promise<string> {
  const res = await call(server, 'POST', '/v1/documents', key, { container, content });
  if (res.status !== 202) throw new Error(`document: ${res.status} ${JSON.stringify(res.body)}`);
  await server.learning.drain();
  return res.body.id;
}

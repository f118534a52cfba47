/**
 * A real PostgreSQL server for the tests: the one ENGRAM_TEST_DATABASE_URL names (scripts/test-all.sh
 * starts one for the whole run), or else one this test process starts from the machine's own
 * binaries (scripts/postgres.sh: initdb into a temporary directory, 127.0.0.1 on a free port) and
 * stops when it exits. Each test gets a database of its own.
 */
import { it } from 'bun:test';
import { SQL } from 'bun';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dir, '../../scripts/postgres.sh');

export interface TestPostgres {
  /** The server's URL, connected to its `postgres` database as a superuser. */
  url: string;
  /** A new, empty database on it; returns its URL. */
  createDatabase(): Promise<string>;
  /** The data directory of a server this process started (null for one it was given), for tests that read its files. */
  dataDir: string | null;
}

let server: TestPostgres | string | undefined;

/** What stops and removes the servers this process started. */
const started: (() => void)[] = [];

/**
 * Stops every server this process started, and removes its files: after the whole suite (the
 * hygiene preload), for `bun test` runs no exit handler; and at exit, for a benchmark.
 */
export function stopTestPostgres(): void {
  for (const stop of started.splice(0)) stop();
  // A later use starts another (where the hook ran between test files).
  if (typeof server === 'object' && server.dataDir) server = undefined;
}
process.on('exit', stopTestPostgres);

/** The server, started on first use; or why there is none (no binaries, a failed start), for the skip message. */
export function testPostgres(): TestPostgres | string {
  server ??= start();
  return server;
}

/**
 * The server for a test file's PostgreSQL cases, or null when there is none: then the file's one
 * test is a skipped one that says why, and a warning says so too, so that no run passes them silently.
 */
export function postgresOrSkip(what: string): TestPostgres | null {
  const found = testPostgres();
  if (typeof found !== 'string') return found;
  console.warn(`${what} skipped: ${found}`);
  it.skip(`${what} (skipped: ${found})`, () => {});
  return null;
}

function start(): TestPostgres | string {
  const given = process.env.ENGRAM_TEST_DATABASE_URL;
  if (given) return serverAt(given, null);
  if (spawnSync('bash', [SCRIPT, 'bindir']).status !== 0) {
    return 'no PostgreSQL server binaries on this machine (scripts/postgres.sh ensure installs them; or set ENGRAM_TEST_DATABASE_URL)';
  }
  // Right in the temporary folder: as root, the server runs as `postgres`, which must reach it.
  const dir = mkdtempSync(join(tmpdir(), 'engram-pg-'));
  const launched = spawnSync('bash', [SCRIPT, 'start', dir, 'max_connections=300'], { encoding: 'utf8' });
  if (launched.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return `the PostgreSQL server did not start: ${launched.stderr.trim()}`;
  }
  started.push(() => {
    spawnSync('bash', [SCRIPT, 'stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return serverAt(launched.stdout.trim(), join(dir, 'data'));
}

function serverAt(url: string, dataDir: string | null): TestPostgres {
  let made = 0;
  return {
    url,
    dataDir,
    async createDatabase() {
      // Unique on a server several test processes share, and across the files one worker process
      // runs under `bun test --parallel` (each file loads this module afresh, so `made` starts again).
      const name = `engram_test_${process.pid}_${crypto.randomUUID().slice(0, 8)}_${++made}`;
      const admin = new SQL({ url, max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE ${name}`);
      } finally {
        await admin.close();
      }
      const target = new URL(url);
      target.pathname = `/${name}`;
      return target.toString();
    },
  };
}

/** A server of a test's own, to stop and start again (a database that goes down): null without the machine's binaries. */
export interface OwnPostgres {
  /** A database on it. */
  url: string;
  /** Stops the server at once, as a crash does. */
  stop(): void;
  /** Starts it again, on its port. */
  resume(): void;
  /** Stops it and removes its files. */
  close(): void;
}

export async function ownPostgres(): Promise<OwnPostgres | null> {
  if (spawnSync('bash', [SCRIPT, 'bindir']).status !== 0) return null;
  const dir = mkdtempSync(join(tmpdir(), 'engram-pg-own-'));
  // Commits reach the log before they are answered: a stop here is a crash, and what was answered stays.
  const launched = spawnSync('bash', [SCRIPT, 'start', dir, 'synchronous_commit=on'], { encoding: 'utf8' });
  if (launched.status !== 0) throw new Error(`the PostgreSQL server did not start: ${launched.stderr}`);
  const close = () => {
    spawnSync('bash', [SCRIPT, 'stop', dir]);
    rmSync(dir, { recursive: true, force: true });
  };
  started.push(close);
  const url = await serverAt(launched.stdout.trim(), join(dir, 'data')).createDatabase();
  const run = (verb: string) => {
    const done = spawnSync('bash', [SCRIPT, verb, dir], { encoding: 'utf8' });
    if (done.status !== 0) throw new Error(`postgres.sh ${verb}: ${done.stderr}`);
  };
  return { url, stop: () => run('stop'), resume: () => run('resume'), close };
}

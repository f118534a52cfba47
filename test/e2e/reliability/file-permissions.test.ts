/**
 * The store holds the person's memory and the server's secrets (the CSRF secret is a row in it),
 * so no other local user may read it. `engram serve` runs as its own process under the usual
 * umask (022) in a data directory the person made themselves (0755): every file Engram writes
 * there, and the backups and exports it writes elsewhere, must be 0600; the directory is made
 * 0700 when it is Engram's own, or left as it is with a warning when it holds other files.
 */
import { afterEach, beforeEach, expect, it } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram, type Served, spawnServer } from '../../../bench/lib/engram-process';
import { INDEX_DIR } from '../../../src/data-dir';
import { DB_FILE } from '../../../src/storage/sqlite/open';
import { sweepThenRemove } from '../../helpers/secret-sweep';

let home: string;
let data: string;
let logFile: string;
let server: Served | null = null;
let umask: number;

beforeEach(() => {
  umask = process.umask(0o022); // children inherit it: what a login shell usually has
  home = mkdtempSync(join(tmpdir(), 'engram-permissions-'));
  data = join(home, 'data');
  logFile = join(home, 'server.log');
  mkdirSync(data, { mode: 0o755 });
});

afterEach(async () => {
  process.umask(umask);
  server?.proc.kill('SIGKILL');
  await server?.proc.exited;
  server = null;
  sweepThenRemove({ harness: 'bun:file-permissions', stores: [data], logs: [logFile] }, home);
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0');
/** Each file's mode by its path in `dir`, the search indexes' folder included. */
const modes = (dir: string) =>
  Object.fromEntries(
    readdirSync(dir, { recursive: true })
      .map(String)
      .filter((name) => statSync(join(dir, name)).isFile())
      .map((name) => [name, modeOf(join(dir, name))]),
  );
const warnings = () =>
  readFileSync(logFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .filter((l) => l.level === 'warn');

it('makes a data directory of its own private (0700) and writes every file 0600, backups and exports included', async () => {
  engram(data, ['owner', 'create', '--email', 'perm@example.org'], 'correct horse battery staple\n');
  chmodSync(join(data, DB_FILE), 0o644); // as an older Engram left it
  server = await spawnServer(data, { ENGRAM_LOG_LEVEL: 'warn' }, logFile);

  expect(modeOf(data)).toBe('0700');
  const files = modes(data);
  expect(Object.keys(files)).toEqual(
    expect.arrayContaining([DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`, 'server.lock', join(INDEX_DIR, 'fast.rows')]),
  );
  for (const [name, mode] of Object.entries(files)) expect(`${name} ${mode}`).toBe(`${name} 0600`);
  expect(modeOf(join(data, INDEX_DIR))).toBe('0700');
  expect(warnings()).toEqual([
    expect.objectContaining({
      msg: 'the data directory was open to other users; it is now private (0700)',
      data_dir: data,
      was: '0755',
    }),
  ]);

  // The search indexes' folder is Engram's too: a directory that holds it is still Engram's alone.
  server.proc.kill('SIGTERM');
  expect(await server.proc.exited).toBe(0);
  chmodSync(data, 0o755);
  writeFileSync(logFile, '');
  server = await spawnServer(data, { ENGRAM_LOG_LEVEL: 'warn' }, logFile);
  expect(modeOf(data)).toBe('0700');
  for (const [name, mode] of Object.entries(modes(data))) expect(`${name} ${mode}`).toBe(`${name} 0600`);

  const backup = join(home, 'backup.db');
  engram(data, ['backup', backup]);
  const exported = join(home, 'export.jsonl');
  engram(data, ['export', '--out', exported]);
  expect(readFileSync(exported, 'utf8')).toContain('"type"');
  expect([modeOf(backup), modeOf(exported)]).toEqual(['0600', '0600']);
}, 60_000);

it('leaves a directory that holds other files as it is, says so, and still writes its own files 0600', async () => {
  writeFileSync(join(data, 'notes.txt'), "the person's own file\n");
  server = await spawnServer(data, { ENGRAM_LOG_LEVEL: 'warn' }, logFile);

  expect(modeOf(data)).toBe('0755');
  const { 'notes.txt': notes, ...ours } = modes(data);
  expect(notes).toBe('0644');
  expect(Object.keys(ours)).toEqual(expect.arrayContaining([DB_FILE, 'server.lock']));
  for (const [name, mode] of Object.entries(ours)) expect(`${name} ${mode}`).toBe(`${name} 0600`);
  const [warning, ...more] = warnings();
  expect(more).toEqual([]);
  expect(warning).toMatchObject({ data_dir: data, mode: '0755' });
  expect(warning.msg).toContain('open to other users');
  expect(warning.msg).toContain('chmod 700');
}, 60_000);

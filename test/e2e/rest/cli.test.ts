/**
 * The `engram` command as a person runs it: `bun /path/to/src/main.ts …` subprocesses started from
 * `/` (as desktop MCP clients start commands) over a temporary data directory. Setting up (owner,
 * container, key) prints only what a script needs; `serve` answers with that key and renders its
 * pages; help exits 0; bad arguments exit 2 with one line; one server per directory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pkg from '../../../package.json' with { type: 'json' };
import { freePort } from '../../../bench/lib/engram-process';
import { COMMANDS } from '../../../src/cli/command-table';
import { sweepThenRemove } from '../../helpers/secret-sweep';

const ROOT = join(import.meta.dir, '..', '..', '..');
const PASSWORD = 'correct horse battery staple';

let home: string;
let data: string;
/** What `serve` wrote on standard error: swept for secrets with the data directory. */
const serverLogs: { name: string; text: string }[] = [];

/** The environment of a person with no ENGRAM_* set (but the embedder) and a HOME of their own. */
function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !k.startsWith('ENGRAM_')) env[k] = v;
  // The fast embedding tier alone: the strong model's load and refinement are not what these tests are about.
  return { ...env, HOME: home, ENGRAM_EMBEDDER: 'fast' };
}

/** `engram` started from `/`: nothing may depend on the checkout being the working directory. */
function spawn(args: string[], stdin?: string, preload: string[] = []) {
  return Bun.spawn([process.execPath, ...preload, join(ROOT, 'src/main.ts'), ...args], {
    cwd: '/',
    env: cleanEnv(),
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
}

async function engram(
  args: string[],
  stdin?: string,
  preload: string[] = [],
): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = spawn(args, stdin, preload);
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { code, stdout, stderr };
}

async function waitForHealth(url: string, proc: ReturnType<typeof spawn>): Promise<void> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null)
      throw new Error(`serve exited with ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return;
    } catch {}
    await Bun.sleep(50);
  }
  throw new Error('serve did not answer /healthz in time');
}

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'engram-cli-home-'));
  data = join(home, 'data');
});
// HOME is `home`: Bun keeps its transpiler cache in home/.bun, which is not the server's.
afterAll(() => sweepThenRemove({ harness: 'bun:cli', stores: [home], texts: serverLogs, exclude: ['.bun'] }, home));

describe('engram, set up from the command line and served', () => {
  it('owner create, containers create, keys create and serve, all from /: the key answers GET /v1/containers, pages render', async () => {
    const owner = await engram(['owner', 'create', '--email', 'me@example.org', '--data', data], `${PASSWORD}\n`);
    expect(owner).toMatchObject({ code: 0, stdout: '' });

    const food = await engram(['containers', 'create', 'Food', '--description', 'What I eat', '--data', data]);
    expect(food.code).toBe(0);
    expect(food.stdout).toMatch(/^ctr_[A-Za-z0-9]+\n$/);
    const foodId = food.stdout.trim();

    const readKey = await engram([
      'keys',
      'create',
      '--name',
      'laptop',
      '--level',
      'read',
      '--containers',
      foodId,
      '--data',
      data,
    ]);
    expect(readKey.code).toBe(0);
    expect(readKey.stdout).toMatch(/^egm_[A-Za-z0-9]+_[A-Za-z0-9]{43}\n$/);
    const key = readKey.stdout.trim();
    const allKey = (
      await engram(['keys', 'create', '--name', 'everything', '--level', 'manage', '--all', '--data', data])
    ).stdout.trim();

    const port = freePort();
    const url = `http://127.0.0.1:${port}`;
    const server = spawn(['serve', '--port', String(port), '--data', data]);
    try {
      await waitForHealth(url, server);
      const res = await fetch(`${url}/v1/containers`, { headers: { Authorization: `Bearer ${key}` } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as any;
      expect(body.containers.map((c: any) => [c.id, c.name, c.description])).toEqual([[foodId, 'Food', 'What I eat']]);

      // health answers ok; the owner's pages render, their JSX loaded by a server started from `/`.
      expect(await engram(['health', '--url', url])).toEqual({ code: 0, stdout: 'ok\n', stderr: '' });
      const page = await fetch(`${url}/sign-in`);
      expect([page.status, page.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8']);
      expect(await page.text()).toContain('name="password"');

      // A second server on the same data directory refuses to start, saying why.
      const second = await engram(['serve', '--port', String(freePort()), '--data', data]);
      expect(second.code).not.toBe(0);
      expect(second.stderr.trim()).toBe(
        `engram: Another Engram server is already using ${data}. Stop it first, or pick another --data directory.`,
      );

      // The CLI writes through the same store while the server runs; an all-containers key sees it at once.
      const later = await engram(['containers', 'create', 'Later', '--data', data]);
      expect(later.code).toBe(0);
      expect(await engram(['containers', 'list', '--data', data])).toEqual({
        code: 0,
        stdout: `${foodId}\tFood\tWhat I eat\n${later.stdout.trim()}\tLater\t\n`,
        stderr: '',
      });
      const listed = await fetch(`${url}/v1/containers`, { headers: { Authorization: `Bearer ${allKey}` } });
      expect(((await listed.json()) as any).containers.map((c: any) => c.name)).toEqual(['Food', 'Later']);

      // owner token prints a session token for the owner's routes.
      const token = await engram(['owner', 'token', '--data', data]);
      expect(token.stdout).toMatch(/^egs_\w+_\w+\n$/);
      const keys = await fetch(`${url}/v1/api-keys`, { headers: { Authorization: `Bearer ${token.stdout.trim()}` } });
      expect(((await keys.json()) as any).active.map((k: any) => k.name).sort()).toEqual(['everything', 'laptop']);
    } finally {
      server.kill('SIGTERM');
    }
    expect(await server.exited).toBe(0);
    serverLogs.push({ name: 'engram serve (standard error)', text: await new Response(server.stderr).text() });
  }, 30_000);

  it('backup, restore, export and import work from /', async () => {
    const dir = join(home, 'transfer');
    const store = join(dir, 'data');
    expect(
      (await engram(['owner', 'create', '--email', 'me@example.org', '--data', store], `${PASSWORD}\n`)).code,
    ).toBe(0);
    expect((await engram(['containers', 'create', 'Kept', '--data', store])).code).toBe(0);
    const exported = join(dir, 'memory.jsonl');
    expect(await engram(['export', '--out', exported, '--data', store])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await Bun.file(exported).text()).toContain('"name":"Kept"');
    const imported = await engram(['import', exported, '--data', store]);
    expect(imported).toEqual({
      code: 0,
      stdout: '',
      stderr: 'Imported 0 new containers, 0 documents (0 already there), 0 facts, 0 rules.\n',
    });
    const backup = join(dir, 'backup.db');
    expect(await engram(['backup', backup, '--data', store])).toEqual({
      code: 0,
      stdout: '',
      stderr: `Wrote a backup of ${store} to ${backup}.\n`,
    });
    expect((await engram(['containers', 'create', 'Gone after restore', '--data', store])).code).toBe(0);
    expect(await engram(['restore', backup, '--data', store])).toEqual({
      code: 0,
      stdout: '',
      stderr: `Restored ${store} from ${backup}.\n`,
    });
    expect((await engram(['containers', 'list', '--data', store])).stdout).toMatch(/^ctr_\w+\tKept\t\n$/);
  }, 30_000);
});

describe('help', () => {
  // The table itself, and the help naming each command's options, are test/cli/command-line.test.ts's.
  it("each command's --help prints its help from /, exit 0", async () => {
    const answers = await Promise.all(COMMANDS.map((c) => engram([...c.name.split(' '), '--help'])));
    answers.forEach((a, i) => {
      const { name, help } = COMMANDS[i]!;
      expect({ name, ...a }).toEqual({ name, code: 0, stdout: `${help}\n`, stderr: '' });
    });
  }, 20_000);

  it('engram --help and engram alone list the commands; --version prints the version', async () => {
    const [help, bare, version] = await Promise.all([engram(['--help']), engram([]), engram(['--version'])]);
    for (const a of [help, bare]) {
      expect(a.code).toBe(0);
      for (const c of COMMANDS) expect(a.stdout).toContain(`\n  ${c.name}`);
    }
    expect(help.stdout).toContain(
      '  backup FILE           write a consistent copy of the store, even while the server runs\n',
    );
    expect(version).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
  }, 20_000);
});

describe('light commands', () => {
  // A preload that makes the server's modules (the HTTP server, pages, store, learning) throw when loaded.
  const tripwire = ['--preload', join(import.meta.dir, 'cli-server-tripwire.ts')];

  it("help, --version, health and mcp load none of the server's modules", async () => {
    const dead = `http://127.0.0.1:${freePort()}`;
    const helps = await Promise.all(
      [[], ['--help'], ['--version'], ...COMMANDS.map((c) => [...c.name.split(' '), '--help'])].map((args) =>
        engram(args, undefined, tripwire),
      ),
    );
    for (const a of helps) expect({ code: a.code, stderr: a.stderr }).toEqual({ code: 0, stderr: '' });
    const health = await engram(['health', '--url', dead], undefined, tripwire);
    expect({ code: health.code, stderr: health.stderr }).toEqual({
      code: 1,
      stderr: expect.stringMatching(new RegExp(`^engram: cannot reach ${dead}: `)),
    });
    // The bridge starts, meets the end of its standard input and leaves: nothing on the way loaded the server.
    const bridge = await engram(['mcp', '--url', dead, '--key', 'egm_nothing_here'], undefined, tripwire);
    expect(bridge).toEqual({
      code: 0,
      stdout: '',
      stderr: `engram mcp: serving MCP on stdio for ${dead}/mcp-http with key egm_noth…here\n`,
    });
    // The tripwire works: a command that opens the store trips it.
    const store = await engram(['containers', 'list', '--data', join(home, 'tripwire')], undefined, tripwire);
    expect({ code: store.code, stderr: store.stderr }).toEqual({
      code: 1,
      stderr: expect.stringContaining('tripwire: loaded src/storage/'),
    });
  }, 30_000);
});

describe('bad arguments', () => {
  it('exit 2 with a one-line message on standard error and nothing on standard output', async () => {
    const bad = join(home, 'bad-args');
    const cases: Array<[string[], RegExp]> = [
      [['frobnicate'], /Unknown command "frobnicate"/],
      [['constructor'], /Unknown command "constructor"/],
      [['keys', '__proto__'], /Unknown command "keys __proto__"/],
      [['toString'], /Unknown command "toString"/],
      [['keys', 'create', '--name', 'x', '--data', bad], /needs --name and --level/],
      [
        ['keys', 'create', '--name', 'x', '--level', 'read', '--all', '--containers', 'ctr_a', '--data', bad],
        /--containers or --all, not both/,
      ],
      [['keys', 'create', '--name', 'x', '--level', 'read', '--expires-in-days', 'ten', '--data', bad], /whole number/],
      [['containers', 'create', '--data', bad], /exactly one NAME/],
      [['containers', 'create', 'A', 'B', '--data', bad], /exactly one NAME/],
      [['owner', 'create', '--data', bad], /needs --email/],
      [['serve', '--bogus'], /bogus/],
      [['serve', '--email', 'me@example.org'], /serve does not take --email/],
      [['containers', 'list', 'extra', '--data', bad], /Unexpected argument "extra"/],
      [['containers', 'list', '--data', bad], /No Engram store in .*bad-args/],
    ];
    const answers = await Promise.all(cases.map(([args]) => engram(args)));
    answers.forEach((a, i) => {
      const [args, message] = cases[i]!;
      expect({ args, code: a.code, stdout: a.stdout, lines: a.stderr.trimEnd().split('\n').length }).toEqual({
        args,
        code: 2,
        stdout: '',
        lines: 1,
      });
      expect(a.stderr).toStartWith('engram: ');
      expect(a.stderr).toMatch(message);
    });
  }, 20_000);
});

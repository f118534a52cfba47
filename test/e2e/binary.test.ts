/** The compiled executable: built by scripts/build.ts, started on a fresh data directory, stopped by a signal. */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Database } from 'bun:sqlite';
import pkg from '../../package.json' with { type: 'json' };
import { DB_FILE } from '../../src/storage/sqlite/open';
import { STYLESHEET_PATH } from '../../src/web/layout';
import { freePort } from '../../bench/lib/engram-process';
import { sweepThenRemove } from '../helpers/secret-sweep';

const ROOT = join(import.meta.dir, '../..');

describe('the compiled binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-binary-'));
  const binary = join(dir, 'engram');
  beforeAll(() => {
    const build = Bun.spawnSync([process.execPath, join(ROOT, 'scripts/build.ts'), '--outfile', binary], { cwd: ROOT });
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  }, 120_000);
  const serverLogs: { name: string; text: string }[] = [];
  // The data directory and what the server wrote are swept for secrets; the binary itself is not a store.
  const offlineDir = join(dir, 'offline');
  afterAll(() =>
    sweepThenRemove(
      { harness: 'bun:binary', stores: [join(dir, 'data'), join(offlineDir, 'data')], texts: serverLogs },
      dir,
    ),
  );

  it('prints its version', () => {
    const run = Bun.spawnSync([binary, '--version']);
    expect(run.stdout.toString().trim()).toBe(pkg.version);
  });

  it('serves on a fresh data directory, with its pages, styles, model and vector extension, and stops cleanly on SIGTERM', async () => {
    const data = join(dir, 'data');
    const env = { ...process.env, ENGRAM_DATA_DIR: data, HOME: dir };
    const cli = (...args: string[]) =>
      Bun.spawnSync([binary, ...args], { env, stdin: new TextEncoder().encode('a long enough password\n') });
    expect(cli('owner', 'create', '--email', 'me@example.org').exitCode).toBe(0);
    const container = cli('containers', 'create', 'Notes').stdout.toString().trim();
    const key = cli('keys', 'create', '--name', 'bin', '--level', 'suggest', '--containers', container)
      .stdout.toString()
      .trim();
    const port = freePort();
    // Started outside the checkout, as a user starts it: a thread's entry must come from the binary, not from src/.
    const server = Bun.spawn([binary, 'serve', '--port', String(port)], { env, stderr: 'pipe', cwd: dir });
    const base = `http://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && Bun.spawnSync([binary, 'health', '--url', base]).exitCode !== 0; i++)
      await Bun.sleep(100);
    const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
    const added = await (
      await fetch(`${base}/v1/documents`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ content: 'The binary learns about herons.' }),
      })
    ).json();
    let learned = false;
    for (let i = 0; i < 100 && !learned; i++) {
      learned = (await (await fetch(`${base}/v1/documents/${added.id}`, { headers })).json()).learned;
      if (!learned) await Bun.sleep(100);
    }
    expect(learned).toBe(true);
    const found = await (
      await fetch(`${base}/v1/search`, { method: 'POST', headers, body: JSON.stringify({ q: 'herons' }) })
    ).json();
    expect(found.results[0].content).toContain('herons');

    // The owner's pages and their stylesheet come out of the binary too.
    const signIn = await fetch(`${base}/sign-in`);
    expect([signIn.status, signIn.headers.get('content-type')]).toEqual([200, 'text/html; charset=UTF-8']);
    expect(await signIn.text()).toContain(STYLESHEET_PATH);
    const style = await fetch(`${base}${STYLESHEET_PATH}`);
    expect(style.headers.get('content-type')).toStartWith('text/css');
    expect((await style.text()).length).toBeGreaterThan(1000);
    server.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    serverLogs.push({ name: 'engram serve (standard error)', text: await new Response(server.stderr).text() });

    // Learning embedded the passage with the built-in model.
    const db = new Database(join(data, DB_FILE), { readonly: true });
    const model = db.query<{ value: string }, []>("SELECT value FROM settings WHERE key = 'embedding_model'").get();
    expect(JSON.parse(model!.value).id).toStartWith('static:');
    expect(db.query("SELECT count(*) AS n FROM passage_vectors WHERE tier = 'fast' AND unit = 0").get()).toEqual({
      n: 1,
    });
    db.close();
  }, 60_000);

  it('finds a paraphrase through the strong tier with no network at all', () => {
    // A network namespace of its own with loopback only: nothing outside this machine is reachable.
    const offline = Bun.spawnSync([
      'unshare',
      '--net',
      'sh',
      '-c',
      'ip link set lo up && exec "$0" "$@"',
      process.execPath,
      join(ROOT, 'test/e2e/binary-paraphrase.ts'),
      binary,
      offlineDir,
      '8787',
    ]);
    const stderr = offline.stderr.toString();
    serverLogs.push({ name: 'engram serve offline (standard error)', text: stderr });
    if (offline.exitCode !== 0 && /unshare: .*(Operation not permitted|cannot)/.test(stderr)) {
      console.warn(`skipped: this machine refuses a network namespace (${stderr.trim()})`);
      return;
    }
    expect(offline.exitCode).toBe(0);
    const { learning, results } = JSON.parse(offline.stdout.toString()) as { learning: object; results: string[] };
    expect(learning).toMatchObject({ queue: 0, passages: 3, refined: 3 });
    // No word of the question is in the answer's passage: only the vectors can find it.
    expect(results[0]).toContain('violin');
  }, 120_000);
});

/**
 * The README's first steps, as a person runs them: the server as `npm start` starts it (its own
 * process, with its own learning), then the README's two blocks exactly as printed, each pasted whole into bash in
 * the checkout. The only change is where: the server listens on a free port rather than 8787, and
 * the data directory is a temporary one rather than ~/.engram. The first search finds the note.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The fenced `sh` blocks of the README's "First steps", as they would be pasted (list indentation off). */
function firstSteps(): string[] {
  const section = README.slice(
    README.indexOf('## First steps'),
    README.indexOf('\n## ', README.indexOf('## First steps') + 1),
  );
  return [...section.matchAll(/^( *)```sh\n([\s\S]*?)^\1```$/gm)].map(([, indent, body]) =>
    body!
      .split('\n')
      .map((line) => line.slice(indent!.length))
      .join('\n'),
  );
}

describe("the README's first steps", () => {
  const data = mkdtempSync(join(tmpdir(), 'engram-readme-'));
  let origin: string;
  let server: ReturnType<typeof Bun.spawn>;
  /** The environment a person's terminal would have, pointed at this server and data directory. */
  let env: Record<string, string>;

  beforeAll(async () => {
    const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
    const port = probe.port;
    probe.stop(true);
    origin = `http://127.0.0.1:${port}`;
    env = { ...(process.env as Record<string, string>), ENGRAM_DATA_DIR: data, ENGRAM_BASE_URL: origin };
    // What `npm start` runs, on that port. Not through npm: a stopped npm leaves its child running.
    const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start as string;
    server = Bun.spawn(['bash', '-c', `exec ${start}`], {
      cwd: ROOT,
      env: { ...env, ENGRAM_PORT: String(port), PATH: `${join(ROOT, 'node_modules/.bin')}:${env.PATH}` },
      stdout: 'ignore',
      stderr: 'ignore',
    });
    for (let i = 0; i < 300; i++) {
      if (
        await fetch(`${origin}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return;
      await Bun.sleep(100);
    }
    throw new Error('the server did not start');
  }, 60_000);

  afterAll(async () => {
    server?.kill('SIGTERM');
    await server?.exited;
    rmSync(data, { recursive: true, force: true });
  });

  /** Pastes `block` into bash in the checkout: the README's address replaced by this server's. */
  const paste = (block: string, stdin?: string) => {
    const run = Bun.spawnSync(['bash', '-e', '-c', block.replaceAll('http://127.0.0.1:8787', origin)], {
      cwd: ROOT,
      env,
      stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
    });
    return { code: run.exitCode, stdout: run.stdout.toString(), stderr: run.stderr.toString() };
  };

  it('make the account, then the block: the first search finds the note', () => {
    const blocks = firstSteps();
    expect(blocks).toHaveLength(2);
    // The account: the password piped rather than typed twice at the prompt.
    const account = paste(blocks[0]!, 'correct horse battery staple\n');
    expect(account.stderr).toContain('Made the account for you@example.org.');
    expect(account.code).toBe(0);

    const run = paste(blocks[1]!);
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('Learned: everything added so far is searchable.');
    // Each answer on a line of its own (curl -w '\n'); the search's is the last.
    expect(run.stdout).toStartWith('{"containers":[');
    const search = JSON.parse(run.stdout.trim().split('\n').at(-1)!);
    expect(search.results[0].content).toBe('I drink my coffee black.');
    expect(search.results[0].container_name).toBe('Notes');
  }, 120_000);
});

/**
 * The strong embedder inside a compiled executable: scripts/build.ts --main builds a small program
 * with the binary's start-up (test/e2e/fixtures/strong-embed-main.ts), which is run outside the
 * checkout with a fresh HOME and no network; its vectors must be the checkout's.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ortPkg from '../../node_modules/onnxruntime-node/package.json' with { type: 'json' };
import { loadOnnxEmbedder } from '../../src/embedders/onnx-embedder';

const ROOT = join(import.meta.dir, '../..');
const TEXTS = [
  'Where did Melanie take the kids camping?',
  'Caroline went to the LGBTQ support group on 7 May 2023. Crème brûlée! 東京 😀',
];

describe('the strong embedder in a compiled binary', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-binary-onnx-'));
  const binary = join(dir, 'bin', 'strong-embed');
  beforeAll(() => {
    const build = Bun.spawnSync(
      [
        process.execPath,
        join(ROOT, 'scripts/build.ts'),
        '--outfile',
        binary,
        '--main',
        join(ROOT, 'test/e2e/fixtures/strong-embed-main.ts'),
      ],
      { cwd: ROOT },
    );
    if (build.exitCode !== 0) throw new Error(`build failed: ${build.stderr.toString()}`);
  }, 120_000);
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('writes the runtime to the cache folder, sends nothing, and embeds exactly as the checkout does', async () => {
    const home = join(dir, 'home');
    const work = join(dir, 'elsewhere');
    mkdirSync(work, { recursive: true });
    // No network namespace where unshare is not allowed: then the run has the machine's network.
    const isolated = Bun.spawnSync(['unshare', '-n', 'true']).exitCode === 0;
    const run = Bun.spawnSync([...(isolated ? ['unshare', '-n'] : []), binary, ...TEXTS], {
      cwd: work,
      env: { PATH: process.env.PATH, HOME: home },
    });
    expect(run.stderr.toString()).toBe('');
    expect(run.exitCode).toBe(0);
    const got = JSON.parse(run.stdout.toString()) as { id: string; vectors: number[][] };

    const reference = await loadOnnxEmbedder();
    expect(got.id).toBe(reference.id);
    const expected = await reference.embed(TEXTS);
    got.vectors.forEach((v, i) => {
      expect(v.length).toBe(384);
      const worst = Math.max(...v.map((x, d) => Math.abs(x - expected[i]![d]!)));
      expect(worst).toBeLessThan(1e-6);
    });

    const cached = join(home, '.cache', 'engram', `onnxruntime-${ortPkg.version}-${process.platform}-${process.arch}`);
    expect(readdirSync(cached)).toContain('libonnxruntime.so.1');
    expect(readdirSync(cached).some((f) => f.endsWith('.tmp'))).toBe(false);
    // ONNX Runtime's telemetry (a device id and an event queue) is switched off before it starts.
    expect(existsSync(join(home, '.cache', 'Microsoft'))).toBe(false);
  }, 60_000);
});

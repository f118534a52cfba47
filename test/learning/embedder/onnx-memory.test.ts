/**
 * The strong embedder's memory, in a fresh process: one session must stay well under the issue's
 * 400 MiB budget for the whole server, which runs two (learning and queries). Measured here: ~120
 * MiB loaded, ~130 MiB after 100 texts; before the arena was switched off, the heap trimmed and
 * the embedding tables kept int8, ~210 and ~260 (docs/embedding-model.md).
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';

describe.if(process.platform === 'linux')('the strong embedder\'s memory', () => {
  it('adds at most 160 MiB of RSS loaded, and still at most 160 MiB after embedding 100 texts', () => {
    const child = Bun.spawnSync([process.execPath, join(import.meta.dir, 'fixtures', 'onnx-memory-child.ts')], { stderr: 'inherit' });
    expect(child.exitCode).toBe(0);
    const { loaded, after100 } = JSON.parse(child.stdout.toString()) as { loaded: number; after100: number };
    expect(loaded).toBeLessThanOrEqual(160);
    expect(after100).toBeLessThanOrEqual(160);
  }, 120_000);
});

/**
 * Temporary folders and vector indexes for tests and benches. Under `bun test` they sit in the
 * run's temporary root, removed after the suite (test/helpers/hygiene-preload.ts); a bench removes
 * them when its process exits or is stopped by SIGINT or SIGTERM.
 */
import { mkdtempSync, rmSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { VectorIndex } from '../../src/search/vector-index';

const made: string[] = [];
const removeMade = () => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
};
process.on('exit', removeMade);
// A bench stopped with Ctrl-C or a kill runs no exit handler: remove them, then end as the signal would.
for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.once(signal, () => {
    removeMade();
    process.kill(process.pid, signal);
  });

/** A new empty folder, removed with the test run's root (or at a bench's exit). */
export function scratchDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'engram-scratch-'));
  made.push(dir);
  return dir;
}

/** A vector index whose rows file is unlinked as soon as it is open: its space is freed with the index. */
export function scratchIndex(dimensions: number): VectorIndex {
  const rows = join(scratchDir(), 'rows');
  const index = new VectorIndex(dimensions, rows);
  unlinkSync(rows);
  return index;
}

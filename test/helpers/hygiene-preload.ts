/**
 * Loaded before every test file (bunfig.toml). The run gets one temporary root: TMPDIR points into
 * it, so every folder a test makes with tmpdir() (and every process it starts) lands there, and the
 * root is removed after the whole suite, whatever a test left. `bun test` runs no exit handler, so
 * the suite's own end is the one place to clean up. Before that it closes the in-process test
 * servers a test left open, so their stores and logs are swept for secrets, and stops the
 * PostgreSQL servers the suite started.
 */
import { afterAll } from 'bun:test';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopTestPostgres } from './postgres';
import { closeLeftovers } from './server';

const root = mkdtempSync(join(tmpdir(), 'engram-test-run-'));
// Readable by all: as root, a test's PostgreSQL server runs as `postgres`, which must reach its folder.
chmodSync(root, 0o755);
process.env.TMPDIR = root;

// Its own timeout: bun holds a hook to the tests' 30 s, and closing and sweeping the servers a test
// left open, then stopping PostgreSQL, can take longer on a cold first run; the hook timing out
// there failed the suite after its last file ("killed 1 dangling process"). Slow, it says where.
afterAll(async () => {
  const started = performance.now();
  const took = () => `${((performance.now() - started) / 1000).toFixed(1)} s`;
  try {
    const left = await closeLeftovers();
    if (left.length) console.warn(`test servers left open (closed and swept after the suite):\n  ${left.join('\n  ')}`);
    const closed = took();
    stopTestPostgres();
    if (performance.now() - started > 10_000)
      console.warn(`the suite's cleanup took ${took()} (test servers closed after ${closed}, then PostgreSQL stopped)`);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}, 300_000);

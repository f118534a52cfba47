/**
 * Loaded before every test file (bunfig.toml): after the whole suite, closes the in-process test
 * servers a test left open, so their stores and logs are swept for secrets and removed too, and
 * stops the PostgreSQL servers the suite started.
 */
import { afterAll } from 'bun:test';
import { stopTestPostgres } from './postgres';
import { closeLeftovers } from './server';

afterAll(async () => {
  const left = await closeLeftovers();
  if (left.length) console.warn(`test servers left open (closed and swept after the suite):\n  ${left.join('\n  ')}`);
  // Then the PostgreSQL servers they used: `bun test` runs no exit handler that would.
  stopTestPostgres();
});

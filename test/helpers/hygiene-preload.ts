/**
 * Loaded before every test file (bunfig.toml): after the whole suite, closes the in-process test
 * servers a test left open, so their stores and logs are swept for secrets and removed too.
 */
import { afterAll } from 'bun:test';
import { closeLeftovers } from './server';

afterAll(async () => {
  const left = await closeLeftovers();
  if (left.length) console.warn(`test servers left open (closed and swept after the suite):\n  ${left.join('\n  ')}`);
});

/**
 * The MCP conformance suite's authorization leg (`conformance authorization`), run by
 * scripts/conformance-auth.sh against a real `engram serve`: the authorization-server metadata
 * scenario and the authorization code grant, with the owner's approval played by a script.
 */
import { describe, expect, it } from 'bun:test';
import { join } from 'node:path';

const ROOT = join(import.meta.dir, '..', '..');

describe('conformance authorization', () => {
  it('passes the metadata scenario and the authorization code grant', async () => {
    const run = Bun.spawn(['bash', join(ROOT, 'scripts', 'conformance-auth.sh')], {
      cwd: ROOT,
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err, code] = await Promise.all([
      new Response(run.stdout).text(),
      new Response(run.stderr).text(),
      run.exited,
    ]);
    if (code !== 0) console.error(out, err);
    expect(code).toBe(0);
    expect(out).toContain('Passed: 2/2, 0 failed, 0 warnings');
    expect(out).toContain('✓ authorization-code-grant: 1 passed, 0 failed');
  }, 120_000);
});

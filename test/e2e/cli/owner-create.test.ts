/**
 * `engram owner create` at a terminal asks for the password twice, as the setup page does, and
 * makes no account when the two differ; piped, it reads the password once. The terminal is a real
 * pseudo-terminal (util-linux `script`), typed into as a person types.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram } from './engram-command';

const ROOT = join(import.meta.dir, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'engram-owner-create-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `engram owner create` on a terminal of its own, typing each of `typed` and Enter. */
function atTerminal(data: string, typed: string[]): { code: number; output: string } {
  const command = [process.execPath, join(ROOT, 'src/main.ts'), 'owner', 'create', '--email', 'sam@example.org']
    .concat(['--data', data])
    .map((a) => `'${a}'`)
    .join(' ');
  const run = Bun.spawnSync(['script', '--quiet', '--return', '--command', command, '/dev/null'], {
    stdin: new TextEncoder().encode(typed.map((t) => `${t}\r`).join('')),
  });
  return { code: run.exitCode ?? -1, output: run.stdout.toString() };
}

describe('engram owner create', () => {
  it('at a terminal asks for the password twice, and makes no account when the two differ', () => {
    const data = join(dir, 'differ');
    const differ = atTerminal(data, ['correct horse battery', 'correct horse batery']);
    expect(differ.output).toContain('Password: ');
    expect(differ.output).toContain('Password again: ');
    expect(differ.output).toContain('engram: The two passwords differ; no account was made. Run the command again.');
    expect(differ.code).toBe(2);
    expect(engram(['owner', 'token', '--data', data]).code).not.toBe(0);

    const same = atTerminal(data, ['correct horse battery', 'correct horse battery']);
    expect(same.output).toContain('Made the account for sam@example.org.');
    expect(same.code).toBe(0);
    expect(engram(['owner', 'token', '--data', data]).stdout).toMatch(/^egs_/);
  });

  it('piped, reads the password once', () => {
    const data = join(dir, 'piped');
    const piped = engram(['owner', 'create', '--email', 'sam@example.org', '--data', data], 'correct horse battery\n');
    expect(piped.stderr).toBe('Made the account for sam@example.org.\n');
    expect(piped.code).toBe(0);
  });
});

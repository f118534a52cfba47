/**
 * A mistyped --data: only `owner create`, `serve` and `restore` may make a store; every other
 * command refuses a directory without one, naming it, and leaves nothing behind (no directory, no
 * empty store, no empty export). Spawned as a person runs them.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { engram } from './engram-command';

describe('a data directory without a store', () => {
  const home = mkdtempSync(join(tmpdir(), 'engram-data-dir-'));
  afterAll(() => rmSync(home, { recursive: true, force: true }));
  const file = join(home, 'an-export.jsonl');

  const commands: string[][] = [
    ['owner', 'token'],
    ['containers', 'create', 'Notes'],
    ['containers', 'list'],
    ['keys', 'create', '--name', 'k', '--level', 'read', '--all'],
    ['export', '--out', join(home, 'out.jsonl')],
    ['import', file],
    ['backup', join(home, 'copy.db')],
  ];

  it('is refused by every command but owner create, serve and restore, naming it; nothing is made', async () => {
    await Bun.write(file, '');
    for (const made of [false, true]) {
      const typo = join(home, made ? 'empty-dir' : 'no-such-dir');
      if (made) mkdirSync(typo);
      for (const args of commands) {
        const run = engram([...args, '--data', typo]);
        // A usage mistake exits 2; backup, which never made a store, says so with its own error (1).
        expect({ args, code: run.code }).toEqual({ args, code: args[0] === 'backup' ? 1 : 2 });
        expect(run.stderr).toContain(typo);
        expect(run.stderr).not.toContain('No account');
      }
      expect(made ? readdirSync(typo) : existsSync(typo)).toEqual(made ? [] : false);
    }
    expect(existsSync(join(home, 'out.jsonl'))).toBe(false);
    expect(existsSync(join(home, 'copy.db'))).toBe(false);
  });

  it('is made by owner create', () => {
    const fresh = join(home, 'fresh');
    expect(
      engram(['owner', 'create', '--email', 'me@example.org', '--data', fresh], 'correct horse battery staple\n').code,
    ).toBe(0);
    expect(engram(['containers', 'list', '--data', fresh]).code).toBe(0);
  });
});

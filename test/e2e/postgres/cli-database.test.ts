/**
 * The store chosen by URL: `--database URL` (or ENGRAM_DATABASE_URL) on the commands puts the
 * memory in PostgreSQL and leaves the data directory without a store; SQLite stays the default;
 * the ways of running that need a shared store are refused on SQLite, saying why; a database that
 * does not answer is said so, without its password.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openPostgresStore } from '../../../src/storage/postgres/postgres-store';
import { DB_FILE } from '../../../src/storage/sqlite/open';
import { engram } from '../cli/engram-command';
import { postgresOrSkip } from '../../helpers/postgres';

const data = mkdtempSync(join(tmpdir(), 'engram-cli-db-'));
afterAll(() => rmSync(data, { recursive: true, force: true }));

describe('ways of running that need a shared store, on SQLite', () => {
  it.each([
    [['serve', '--learning', 'off'], 'serve --learning off'],
    [['learn'], 'learn'],
  ])('refuses `engram %p`, saying that one process owns the SQLite file', (args, command) => {
    const run = engram([...args, '--data', data]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`engram ${command} needs a shared PostgreSQL store`);
    expect(run.stderr).toContain('one process owns');
    expect(existsSync(join(data, DB_FILE))).toBe(false);
  });

  it("refuses a URL that is not PostgreSQL's, and backup and restore of a PostgreSQL store", () => {
    expect(engram(['containers', 'list', '--database', 'mysql://x@y/z', '--data', data])).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('ENGRAM_DATABASE_URL must be a PostgreSQL URL'),
    });
    expect(engram(['backup', join(data, 'b'), '--database', 'postgres://x@127.0.0.1/z', '--data', data])).toMatchObject(
      { code: 2, stderr: expect.stringContaining('pg_dump') },
    );
  });

  it('says a database that does not answer cannot be used, without its password', () => {
    const run = engram([
      'containers',
      'list',
      '--database',
      'postgres://engram:hunter2@127.0.0.1:1/engram',
      '--data',
      data,
    ]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('The database at postgres://engram:***@127.0.0.1:1/engram cannot be used');
    expect(run.stderr).not.toContain('hunter2');
  });
});

const server = postgresOrSkip('the commands on a PostgreSQL store');
if (server) {
  describe('the commands with --database', () => {
    it('make the owner, a container and a key in PostgreSQL, list and revoke the key; the data directory holds no store', async () => {
      const url = await server.createDatabase();
      const db = ['--database', url, '--data', data];
      expect(
        engram(['owner', 'create', '--email', 'me@example.org', ...db], 'correct horse battery staple\n').code,
      ).toBe(0);
      const container = engram(['containers', 'create', 'Notes', ...db]);
      expect(container.code).toBe(0);
      const key = engram(['keys', 'create', '--name', 'script', '--level', 'read', '--all', ...db]);
      expect(key.stdout).toMatch(/^egm_/);
      const listed = engram(['keys', 'list', ...db])
        .stdout.trim()
        .split('\t');
      expect(listed.slice(1)).toEqual(['script', 'read', 'active']);
      expect(engram(['keys', 'revoke', listed[0]!, ...db]).code).toBe(0);
      expect(
        engram(['keys', 'list', ...db])
          .stdout.trim()
          .split('\t')
          .at(-1),
      ).toBe('revoked');
      // The environment variable is the same choice as the option.
      const byEnv = Bun.spawnSync(
        [process.execPath, join(import.meta.dir, '../../../src/main.ts'), 'containers', 'list', '--data', data],
        { env: { ...process.env, ENGRAM_DATABASE_URL: url } },
      );
      expect(byEnv.stdout.toString()).toContain(`${container.stdout.trim()}\tNotes`);

      const store = await openPostgresStore(url);
      try {
        const [account] = await store.accounts.list();
        expect(account!.email).toBe('me@example.org');
        expect((await store.containers.list(account!.id)).map((c) => c.name)).toEqual(['Notes']);
      } finally {
        await store.close();
      }
      expect(existsSync(join(data, DB_FILE))).toBe(false);
    });
  });
}

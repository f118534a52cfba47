/**
 * Migration 0018 on a store as 0017 left it: container names that read alike (case, NFKC, an
 * invisible filler) were all allowed then. After it every name follows the rule (blanks made
 * spaces, invisible characters gone), a later look-alike is renamed "Notes (2)" (or the next
 * number no other container keeps), nothing else changes, and the database itself refuses the
 * next look-alike.
 */
import { Database } from 'bun:sqlite';
import { afterAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UniqueViolation } from '../../src/errors';
import { DB_FILE, openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';

describe('migration 0018: container names compared as people read them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engram-names-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // A current store taken back to 0017, then written as 0017 allowed.
  openDatabase(dir, Date.now()).close();
  const old = new Database(join(dir, DB_FILE));
  old.run('DROP INDEX containers_account_name_key');
  old.run('ALTER TABLE containers DROP COLUMN name_key');
  old.run('ALTER TABLE containers DROP COLUMN learns_into_profile');
  old.run("DELETE FROM schema_migrations WHERE version = '0018_containers'");
  for (const account of ['acc_a', 'acc_b'])
    old.run('INSERT INTO accounts (id, email, password_hash, created_at) VALUES (?, ?, ?, 0)', [
      account,
      `${account}@example.org`,
      'x',
    ]);
  const made: [string, string, string][] = [
    ['ctr_1', 'acc_a', 'Notes'],
    ['ctr_2', 'acc_a', 'notes'],
    ['ctr_3', 'acc_a', 'Notes\u3164'],
    ['ctr_4', 'acc_a', 'Notes (2)'],
    ['ctr_5', 'acc_a', 'Ｗｏｒｋ'],
    ['ctr_6', 'acc_a', 'Work'],
    ['ctr_7', 'acc_a', 'My\u3000Trips\u200B'],
    ['ctr_8', 'acc_b', 'Notes'],
  ];
  for (const [i, [id, account, name]] of made.entries()) {
    old.run(
      'INSERT INTO containers (id, account_id, name, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)',
      [id, account, name, `kept ${i}`, i, i],
    );
  }
  old.close();

  const store = openSqliteStore(openDatabase(dir, Date.now()));
  afterAll(() => store.close());

  it('renames a later look-alike, cleans what the rule refuses, and leaves the rest as it was', async () => {
    const after = async (account: string) =>
      (await store.containers.list(account)).map((c) => [c.id, c.name, c.description]);
    expect(await after('acc_a')).toEqual([
      ['ctr_1', 'Notes', 'kept 0'],
      ['ctr_2', 'notes (3)', 'kept 1'], // "notes (2)" reads as ctr_4's own name, which it keeps
      ['ctr_3', 'Notes (4)', 'kept 2'],
      ['ctr_4', 'Notes (2)', 'kept 3'],
      ['ctr_5', 'Ｗｏｒｋ', 'kept 4'],
      ['ctr_6', 'Work (2)', 'kept 5'],
      ['ctr_7', 'My Trips', 'kept 6'],
    ]);
    expect(await after('acc_b')).toEqual([['ctr_8', 'Notes', 'kept 7']]);
  });

  it('refuses the next look-alike in the database, per account, and finds a container by a name that reads as its own', async () => {
    const insert = (accountId: string, name: string) =>
      store.containers.insert({ id: `ctr_${name}`, accountId, name, description: '', createdAt: 9, updatedAt: 9 });
    await expect(insert('acc_a', 'NOTES')).rejects.toBeInstanceOf(UniqueViolation);
    await expect(insert('acc_b', 'ｎｏｔｅｓ')).rejects.toBeInstanceOf(UniqueViolation);
    await expect(store.containers.update('acc_a', 'ctr_5', { name: 'work (2)', updatedAt: 9 })).rejects.toBeInstanceOf(
      UniqueViolation,
    );
    await insert('acc_b', 'Work');
    expect((await store.containers.getByName('acc_a', 'WORK'))?.id).toBe('ctr_5');
    expect((await store.containers.getByName('acc_a', 'my trips'))?.id).toBe('ctr_7');
  });
});

/**
 * Drizzle's view of the store (src/storage/sqlite/schema.ts) against what the migrations really
 * make: a fresh store opened through openDatabase, read back with SQLite's own pragmas. The SQL
 * files are the source of truth; this catches a column renamed, added or made nullable on one
 * side only, and a table drizzle does not know of.
 */
import type { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { is } from 'drizzle-orm';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { openDatabase } from '../../src/storage/sqlite/open';
import * as schema from '../../src/storage/sqlite/schema';
import { type Column, ordinaryTables, tableColumns } from './sqlite-tables';

/**
 * Tables the migrations make that drizzle is not meant to know, each with why. Virtual tables
 * (FTS5) and their shadow tables, SQLite's own (`sqlite_*`) and `schema_migrations` are left out
 * by rule below, not listed here.
 */
const RAW_SQL_ONLY: Record<string, string> = {
  keyword_index_rebuild:
    "one row of progress that exists only while a large store's keyword index is rebuilt in the background (migration 0008); fts-rebuild.ts alone reads and drops it",
  removed_passages:
    "the ids of deleted passages, written by a trigger (migration 0024), read and pruned only by the store's `removals` for the running server's indexes",
};

const drizzleTables = (Object.values(schema) as unknown[])
  .filter((value): value is SQLiteTable => is(value, SQLiteTable))
  .map((t) => getTableConfig(t));

/** A drizzle table as columns (in declaration order) and primary-key columns. */
function fromDrizzle(table: ReturnType<typeof getTableConfig>): { columns: Column[]; primaryKey: string[] } {
  const composite = table.primaryKeys.flatMap((pk) => pk.columns.map((c) => c.name));
  return {
    columns: table.columns.map((c) => ({ name: c.name, type: c.getSQLType().toUpperCase(), notNull: c.notNull })),
    primaryKey: composite.length ? composite : table.columns.filter((c) => c.primary).map((c) => c.name),
  };
}

const byName = (a: Column, b: Column) => a.name.localeCompare(b.name);

describe('drizzle schema and migrated tables', () => {
  let dir: string;
  let db: Database;
  /** Ordinary tables of the migrated store: no virtual tables, their shadows, SQLite's own, or the migrations' ledger. */
  let tables: string[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'engram-schema-'));
    db = openDatabase(dir, Date.now());
    tables = ordinaryTables(db);
  });
  afterAll(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('has a migrated table for every drizzle table, with the same columns, types, NOT NULL and primary key', () => {
    expect(drizzleTables.length).toBeGreaterThan(0);
    for (const table of drizzleTables) {
      expect({ table: table.name, migrated: tables.includes(table.name) }).toEqual({
        table: table.name,
        migrated: true,
      });
      const want = tableColumns(db, table.name);
      const have = fromDrizzle(table);
      expect({ table: table.name, columns: [...have.columns].sort(byName) }).toEqual({
        table: table.name,
        columns: [...want.columns].sort(byName),
      });
      expect({ table: table.name, primaryKey: have.primaryKey }).toEqual({
        table: table.name,
        primaryKey: want.primaryKey,
      });
    }
  });

  it('has a drizzle table for every migrated table, or says why not', () => {
    const known = new Set(drizzleTables.map((t) => t.name));
    expect(tables.filter((name) => !known.has(name) && !(name in RAW_SQL_ONLY))).toEqual([]);
  });

  it('lists as raw-SQL-only only tables a migration makes and drizzle does not hold', () => {
    const sql = readdirSync(join(import.meta.dir, '../../migrations'))
      .filter((f) => f.endsWith('.sql'))
      .map((f) => readFileSync(join(import.meta.dir, '../../migrations', f), 'utf8'))
      .join('\n');
    for (const name of Object.keys(RAW_SQL_ONLY)) {
      expect({ name, created: new RegExp(`CREATE TABLE\\s+"?${name}"?\\s*\\(`, 'i').test(sql) }).toEqual({
        name,
        created: true,
      });
      expect({ name, drizzle: drizzleTables.some((t) => t.name === name) }).toEqual({ name, drizzle: false });
    }
  });
});

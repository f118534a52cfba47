/**
 * A migrated SQLite store's tables as SQLite's own catalogue and pragmas give them, for the tests
 * that hold its schema against drizzle's (schema-parity) and PostgreSQL's (engine-parity).
 */
import type { Database } from 'bun:sqlite';

export interface Column {
  name: string;
  type: string;
  notNull: boolean;
}

/** Ordinary tables: no virtual tables, their shadows, SQLite's own, or the migrations' ledger. */
export function ordinaryTables(db: Database): string[] {
  const objects = db
    .query<{ name: string; sql: string }, []>("SELECT name, sql FROM sqlite_schema WHERE type = 'table'")
    .all();
  const virtual = objects.filter((o) => /^CREATE VIRTUAL TABLE/i.test(o.sql)).map((o) => o.name);
  return objects
    .map((o) => o.name)
    .filter(
      (name) =>
        !name.startsWith('sqlite_') &&
        name !== 'schema_migrations' &&
        !virtual.some((v) => name === v || name.startsWith(`${v}_`)),
    );
}

/** A table's columns (in table order, types upper-cased) and primary-key columns (in key order). */
export function tableColumns(db: Database, name: string): { columns: Column[]; primaryKey: string[] } {
  const info = db
    .query<{ name: string; type: string; notnull: number; pk: number }, []>(`PRAGMA table_info("${name}")`)
    .all();
  return {
    // A primary key counts as NOT NULL, as drizzle and PostgreSQL declare it. (SQLite lets a TEXT
    // PRIMARY KEY hold NULL unless it says NOT NULL too; the store never writes one.)
    columns: info.map((c) => ({ name: c.name, type: c.type.toUpperCase(), notNull: c.notnull === 1 || c.pk > 0 })),
    primaryKey: info
      .filter((c) => c.pk > 0)
      .sort((a, b) => a.pk - b.pk)
      .map((c) => c.name),
  };
}

/**
 * The two stores hold the same model: a fresh SQLite store (openDatabase) and a fresh PostgreSQL
 * database (openPostgresStore), each migrated by its own migrations, read back from each engine's
 * catalogue. Every table of one is a table of the other, with the same columns (of matching types),
 * NOT NULL, primary key, unique keys and foreign keys (their table and ON DELETE). What only one
 * engine has is listed below with why, and the list is checked too, so it cannot go stale.
 */
import type { Database } from 'bun:sqlite';
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { SQL } from 'bun';
import { openPostgresStore } from '../../src/storage/postgres/postgres-store';
import { openDatabase } from '../../src/storage/sqlite/open';
import { postgresOrSkip } from '../helpers/postgres';
import { scratchDir } from '../helpers/scratch';
import { ordinaryTables, tableColumns } from './sqlite-tables';

/** Tables one engine has and the other does not, each with why. */
const ONE_ENGINE_TABLES: Record<string, string> = {
  keyword_index_rebuild:
    "SQLite: the progress of a large store's keyword index rebuilt in the background (migration 0008); PostgreSQL's index is made with its table",
  removed_passages:
    "SQLite: the ids of passages any program deleted, which the one server's in-memory indexes drop (PostgreSQL's vector feed carries them)",
  vector_commits:
    "PostgreSQL: the vector change feed's commits, which other processes' in-memory indexes follow; SQLite's one server learns itself what it stores, and reads removed_passages for what others delete",
  vector_changes: "PostgreSQL: the vector change feed's changes (see vector_commits)",
  vector_feed_floor:
    'PostgreSQL: the last commit pruned from the vector change feed; a follower below it reads its indexes again',
  passage_keywords:
    "PostgreSQL: each passage's words for full-text search (a narrow table, so that ranking reads few pages), which SQLite keeps in its FTS5 table passages_fts",
  rate_calls:
    "PostgreSQL: each credential's calls of the last minute, for the limiter every process shares (SQLite's one process counts in memory)",
};

/** Columns one engine has and the other does not, each with why. */
const ONE_ENGINE_COLUMNS: Record<string, string> = {
  'containers.seq': "PostgreSQL: the order rows were stored in, which SQLite's rowid gives",
  'documents.seq': "PostgreSQL: the order rows were stored in, which SQLite's rowid gives",
  'memories.seq': "PostgreSQL: the order rows were stored in, which SQLite's rowid gives",
  'rules.seq': "PostgreSQL: the order rows were stored in, which SQLite's rowid gives",
};

/** SQLite's declared type → the PostgreSQL types that hold the same values. */
const SAME_TYPES: Record<string, string[]> = {
  INTEGER: ['bigint', 'integer', 'boolean'],
  TEXT: ['text', 'json'],
  BLOB: ['bytea'],
};

interface Table {
  columns: Map<string, { type: string; notNull: boolean }>;
  primaryKey: string[];
  /** Unique keys besides the primary key, each as its columns joined by commas. */
  unique: string[];
  /** `column → table(column) ON DELETE action`. */
  foreignKeys: string[];
}

type Model = Map<string, Table>;

function sqliteModel(db: Database): Model {
  const model: Model = new Map();
  for (const name of ordinaryTables(db)) {
    const { columns, primaryKey } = tableColumns(db, name);
    const indexes = db
      .query<{ name: string; unique: number; origin: string }, []>(`PRAGMA index_list("${name}")`)
      .all();
    const unique = indexes
      .filter((i) => i.unique && i.origin !== 'pk')
      .map((i) =>
        db
          .query<{ name: string }, []>(`PRAGMA index_info("${i.name}")`)
          .all()
          .map((c) => c.name)
          .join(','),
      );
    const foreignKeys = db
      .query<{ from: string; table: string; to: string; on_delete: string }, []>(`PRAGMA foreign_key_list("${name}")`)
      .all()
      .map((f) => `${f.from} → ${f.table}(${f.to}) ON DELETE ${f.on_delete}`);
    model.set(name, {
      columns: new Map(columns.map((c) => [c.name, { type: c.type, notNull: c.notNull }])),
      primaryKey,
      unique: unique.sort(),
      foreignKeys: foreignKeys.sort(),
    });
  }
  return model;
}

async function postgresModel(sql: SQL): Promise<Model> {
  const model: Model = new Map();
  const tables = await sql`SELECT table_name AS name FROM information_schema.tables
                            WHERE table_schema = 'public' AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations'`;
  for (const { name } of tables) {
    const columns = await sql`SELECT column_name AS name, data_type AS type, is_nullable = 'NO' AS not_null
                                FROM information_schema.columns WHERE table_schema = 'public' AND table_name = ${name}`;
    const indexes = await sql`SELECT i.indisprimary AS primary, pg_get_indexdef(i.indexrelid) AS def
                                FROM pg_index i WHERE i.indrelid = ${name}::regclass AND i.indisunique`;
    // `CREATE UNIQUE INDEX … (a, b)` → "a,b"; an index on lower(email) is email's, compared without case (SQLite: COLLATE NOCASE).
    const keyOf = (def: string) =>
      /USING \w+ \((.*)\)$/
        .exec(def)![1]!
        .replace(/lower\((\w+)\)/g, '$1')
        .split(',')
        .map((c) => c.trim())
        .join(',');
    const keys = indexes.map((i: { primary: boolean; def: string }) => ({ primary: i.primary, key: keyOf(i.def) }));
    const foreignKeys =
      await sql`SELECT pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = ${name}::regclass AND contype = 'f'`;
    model.set(name, {
      columns: new Map(
        columns.map((c: { name: string; type: string; notNull: boolean }) => [
          c.name,
          { type: c.type, notNull: c.notNull },
        ]),
      ),
      primaryKey: keys.find((k: { primary: boolean }) => k.primary)?.key.split(',') ?? [],
      unique: keys
        .filter((k: { primary: boolean }) => !k.primary)
        .map((k: { key: string }) => k.key)
        .sort(),
      foreignKeys: foreignKeys
        .map(({ def }: { def: string }) => {
          const [, from, table, to, action] =
            /FOREIGN KEY \((\w+)\) REFERENCES (\w+)\((\w+)\)(?: ON DELETE (SET NULL|CASCADE))?/.exec(def)!;
          return `${from} → ${table}(${to}) ON DELETE ${action ?? 'NO ACTION'}`;
        })
        .sort(),
    });
  }
  return model;
}

const server = postgresOrSkip("The two stores' schema parity");
if (server) {
  describe('the SQLite and PostgreSQL stores hold the same model', () => {
    let db: Database;
    let sqlite: Model;
    let postgres: Model;
    beforeAll(async () => {
      db = openDatabase(scratchDir(), Date.now());
      sqlite = sqliteModel(db);
      const url = await server.createDatabase();
      await (await openPostgresStore(url)).close();
      const sql = new SQL({ url, max: 1, transform: SQL.camel });
      postgres = await postgresModel(sql);
      await sql.close();
    });
    afterAll(() => db.close());

    it('has the same tables, but those of one engine said why', () => {
      const one = (a: Model, b: Model) => [...a.keys()].filter((t) => !b.has(t) && !(t in ONE_ENGINE_TABLES)).sort();
      expect({ onlySqlite: one(sqlite, postgres), onlyPostgres: one(postgres, sqlite) }).toEqual({
        onlySqlite: [],
        onlyPostgres: [],
      });
    });

    it('has the same columns in each table, of matching types and NOT NULL, but those of one engine said why', () => {
      for (const [name, lite] of sqlite) {
        const pg = postgres.get(name);
        if (!pg) continue;
        for (const column of new Set([...lite.columns.keys(), ...pg.columns.keys()])) {
          const [l, p] = [lite.columns.get(column), pg.columns.get(column)];
          if (!l || !p) {
            expect({ column: `${name}.${column}`, said: `${name}.${column}` in ONE_ENGINE_COLUMNS }).toEqual({
              column: `${name}.${column}`,
              said: true,
            });
            continue;
          }
          expect({
            column: `${name}.${column}`,
            type: SAME_TYPES[l.type]?.includes(p.type) ? 'same' : `${l.type} / ${p.type}`,
            notNull: p.notNull,
          }).toEqual({ column: `${name}.${column}`, type: 'same', notNull: l.notNull });
        }
      }
    });

    it('has the same primary, unique and foreign keys', () => {
      for (const [name, lite] of sqlite) {
        const pg = postgres.get(name);
        if (!pg) continue;
        const keys = (t: Table) => ({
          table: name,
          primaryKey: t.primaryKey,
          unique: t.unique,
          foreignKeys: t.foreignKeys,
        });
        expect(keys(pg)).toEqual(keys(lite));
      }
    });

    it("lists as one engine's only what one engine has", () => {
      for (const table of Object.keys(ONE_ENGINE_TABLES))
        expect({ table, both: sqlite.has(table) && postgres.has(table) }).toEqual({ table, both: false });
      for (const column of Object.keys(ONE_ENGINE_COLUMNS)) {
        const [table, name] = column.split('.') as [string, string];
        const has = (m: Model) => m.get(table)?.columns.has(name) ?? false;
        expect({ column, inOne: has(sqlite) !== has(postgres) }).toEqual({ column, inOne: true });
      }
    });
  });
}

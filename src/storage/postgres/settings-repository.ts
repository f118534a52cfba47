import type { SQL } from 'bun';
import type { SettingsRepository } from '../settings';
import type { PostgresContext } from './context';

/** A setting's value, null when there is none; for the repositories that keep theirs in `settings`. */
export async function readSetting(sql: SQL, key: string): Promise<string | null> {
  const [row] = await sql`SELECT value FROM settings WHERE key = ${key}`;
  return row?.value ?? null;
}

export async function writeSetting(sql: SQL, key: string, value: string): Promise<void> {
  await sql`INSERT INTO settings (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO UPDATE SET value = excluded.value`;
}

/** A setting's value, removed as it is read; null when there is none. */
export async function takeSetting(sql: SQL, key: string): Promise<string | null> {
  const [row] = await sql`DELETE FROM settings WHERE key = ${key} RETURNING value`;
  return row?.value ?? null;
}

export function settingsRepository({ sql }: PostgresContext): SettingsRepository {
  return {
    // Of processes ensuring the same key at once, the first insert wins and all read it. A statement
    // that waited on another's insert does not see that row (its snapshot is older): it runs again.
    ensure: async (key, make) => {
      const value = make();
      for (;;) {
        const [row] = await sql`
          WITH added AS (INSERT INTO settings (key, value) VALUES (${key}, ${value}) ON CONFLICT (key) DO NOTHING RETURNING value)
          SELECT value FROM added UNION ALL SELECT value FROM settings WHERE key = ${key} LIMIT 1`;
        if (row) return row.value;
      }
    },
    set: (key, value) => writeSetting(sql, key, value),
    get: (key) => readSetting(sql, key),
    claim: async (key) =>
      (await sql`SELECT value FROM settings WHERE key = ${key} FOR UPDATE SKIP LOCKED`)[0]?.value ?? null,
  };
}

import { eq } from 'drizzle-orm';
import type { SettingsRepository } from '../settings';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

type Db = SqliteContext['db'];

/** A setting's value, null when there is none; for the repositories that keep theirs in `settings`. */
export const readSetting = (db: Db, key: string): string | null =>
  db.select().from(t.settings).where(eq(t.settings.key, key)).get()?.value ?? null;

export function writeSetting(db: Db, key: string, value: string): void {
  db.insert(t.settings).values({ key, value }).onConflictDoUpdate({ target: t.settings.key, set: { value } }).run();
}

/** A setting's value, removed as it is read; null when there is none. */
export const takeSetting = (db: Db, key: string): string | null =>
  db.delete(t.settings).where(eq(t.settings.key, key)).returning().get()?.value ?? null;

export function settingsRepository({ db, atomic }: SqliteContext): Synchronous<SettingsRepository> {
  return {
    ensure: (key, make) =>
      atomic(() => {
        db.insert(t.settings).values({ key, value: make() }).onConflictDoNothing().run();
        return readSetting(db, key)!;
      }),
    set: (key, value) => writeSetting(db, key, value),
    get: (key) => readSetting(db, key),
    claim: (key) => readSetting(db, key),
  };
}

import { eq } from 'drizzle-orm';
import type { SettingsRepository } from '../settings';
import type { SqliteContext } from './context';
import * as t from './schema';

export function settingsRepository({ db, transaction }: SqliteContext): SettingsRepository {
  return {
    ensureSetting: (key, make) => transaction(() => {
      db.insert(t.settings).values({ key, value: make() }).onConflictDoNothing().run();
      return db.select().from(t.settings).where(eq(t.settings.key, key)).get()!.value;
    }),
    setSetting: (key, value) => {
      db.insert(t.settings).values({ key, value }).onConflictDoUpdate({ target: t.settings.key, set: { value } }).run();
    },
    takeSetting: (key) => db.delete(t.settings).where(eq(t.settings.key, key)).returning().get()?.value ?? null,
  };
}

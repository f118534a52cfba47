/** Server-wide settings: values of the server, not of an account (the session signing key, say). */

export interface SettingsRepository {
  /** The value of a server-wide setting, inserted first as `make()` when there is none (race-free). */
  ensureSetting(key: string, make: () => string): string;
  setSetting(key: string, value: string): void;
  /** The value of a setting, removed as it is read; null when there is none. */
  takeSetting(key: string): string | null;
}

/**
 * The repositories with every method called through `through`: how each engine's store puts its
 * rule around every call (SQLite: run under the connection's lock, or only inside the open
 * transaction; PostgreSQL: refused where it would misbehave, and watched for a database that does
 * not answer).
 */
import type { Repositories } from './store';

export function eachMethodThrough<C>(repositories: object, through: (call: () => C) => Promise<unknown>): Repositories {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, repository] of Object.entries(repositories) as [string, object][]) {
    out[name] = Object.fromEntries(
      Object.entries(repository).map(([method, fn]) => [
        method,
        (...args: unknown[]) => through(() => (fn as (...a: unknown[]) => C)(...args)),
      ]),
    );
  }
  return out as unknown as Repositories;
}

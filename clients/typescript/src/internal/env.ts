/**
 * Reads the client's environment variables on any runtime, without importing a runtime's own
 * module. This is the only reader of the environment in the client; nothing here is exported publicly.
 */

interface RuntimeGlobals {
  process?: { env?: Record<string, string | undefined> };
  Deno?: { env?: { get(name: string): string | undefined } };
}

/**
 * The variable's value, or undefined when it is unset, blank, or unreadable (a browser has no
 * environment; Deno without `--allow-env` throws, which is treated as unset).
 */
export function readEnv(name: string): string | undefined {
  const runtime = globalThis as RuntimeGlobals;
  let value: string | undefined;
  try {
    value = runtime.process?.env?.[name] ?? runtime.Deno?.env?.get(name);
  } catch {
    return undefined;
  }
  value = value?.trim();
  return value ? value : undefined;
}

#!/usr/bin/env bun
/**
 * The `engram` command: reads the command line against the command table (src/cli/command-table.ts)
 * and runs the command. Bad arguments exit with code 2; a failure meant for the person with code 1.
 */
import pkg from '../package.json' with { type: 'json' };
import { COMMANDS, overview } from './cli/command-table';
import { readCommandLine } from './cli/command-line';
import { print } from './cli/print';
import { UsageError } from './cli/usage-error';
import { ConfigError, loadConfig } from './config';

async function main(argv: string[]): Promise<number> {
  const invocation = readCommandLine(argv, COMMANDS);
  if (invocation.kind === 'version') return print(pkg.version);
  if (invocation.kind === 'help') return print(invocation.command?.help ?? overview());
  const { command, operand, values } = invocation;
  const env = { ...process.env };
  if (values.data) env.ENGRAM_DATA_DIR = values.data;
  if (values.database) env.ENGRAM_DATABASE_URL = values.database;
  if (values.host) env.ENGRAM_HOST = values.host;
  if (values.port) env.ENGRAM_PORT = values.port;
  return command.run({ operand, values, config: loadConfig(env) });
}

/**
 * Whether `err` carries a message written for the person (a refused operation, a busy data
 * directory, a store of a newer release, a bad backup, a refused import, a database that does not answer). Their modules are imported only
 * here, on failure: a command that threw one has loaded its module already, and a light command
 * stays light.
 */
async function isForThePerson(err: unknown): Promise<boolean> {
  const kinds = await Promise.all([
    import('./errors').then((m) => m.ServiceError),
    import('./storage/sqlite/open').then((m) => m.DataDirBusyError),
    import('./storage/newer-store').then((m) => m.NewerStoreError),
    import('./storage/sqlite/backup').then((m) => m.BackupError),
    import('./storage/open-store').then((m) => m.DatabaseUnreachableError),
  ]);
  return kinds.some((kind) => err instanceof kind);
}

main(Bun.argv.slice(2)).then(
  (code) => process.exit(code),
  async (err) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`engram: ${err.message}\n`);
      process.exit(2);
    }
    if (await isForThePerson(err)) {
      process.stderr.write(`engram: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`engram: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);

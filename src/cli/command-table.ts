/**
 * The command table: every `engram` command described once (name, summary, help, options, operand,
 * what it does). `engram --help`, each command's help, option checking and dispatch all come from it.
 * Each command imports what it needs only when it runs, so `mcp`, `health` and help load no server.
 */
import { closeSync, openSync } from 'node:fs';
import pkg from '../../package.json' with { type: 'json' };
import { loadBridgeConfig } from '../config';
import type { CliCommand } from './command';
import { print } from './print';
import { UsageError } from './usage-error';

const COMMON = '  --data DIR         data directory (ENGRAM_DATA_DIR, default ~/.engram)';
const ACCOUNT = '  --email E          the account to act for (needed only when there are several)';
const SERVER_URL = '  --url ORIGIN       the server (ENGRAM_BASE_URL, default http://127.0.0.1:8787)';

/** A line of standard error for the person: what was done. */
function said(line: string): number {
  process.stderr.write(`${line}\n`);
  return 0;
}

export const COMMANDS: readonly CliCommand[] = [
  {
    name: 'serve',
    summary: 'start the server',
    options: ['host', 'port', 'data'],
    help: `Usage: engram serve [--host H] [--port P] [--data DIR]

  --host H           address to listen on (ENGRAM_HOST, default 127.0.0.1)
  --port P           port (ENGRAM_PORT, default 8787; 0 picks a free one)
${COMMON}`,
    run: async ({ config }) => (await import('./serve')).serve(config),
  },
  {
    name: 'owner create',
    summary: "make the owner's account",
    options: ['email', 'data'],
    help: `Usage: engram owner create --email E [--data DIR]

Makes the owner's account. The password is read from standard input when piped, otherwise asked for.
${COMMON}`,
    async run({ values, config }) {
      if (!values.email) throw new UsageError('owner create needs --email.');
      const [{ readPassword }, cmd] = await Promise.all([import('./password'), import('./store-commands')]);
      await cmd.ownerCreate(config, values.email, await readPassword('Password: '));
      return said(`Made the account for ${values.email}.`);
    },
  },
  {
    name: 'owner token',
    summary: "print a session token for the owner's REST calls",
    options: ['email', 'data'],
    help: `Usage: engram owner token [--email E] [--data DIR]

Prints a session token (egs_…) for the owner's REST calls: key and container management.
${ACCOUNT}
${COMMON}`,
    run: async ({ values, config }) => print(await (await import('./store-commands')).ownerToken(config, values.email)),
  },
  {
    name: 'containers create',
    summary: 'make a container',
    operand: 'NAME',
    options: ['description', 'email', 'data'],
    help: `Usage: engram containers create NAME [--description D] [--email E] [--data DIR]

Prints the new container's id alone on standard output.
  --description D    what the container holds
${ACCOUNT}
${COMMON}`,
    async run({ operand, values, config }) {
      return print(await (await import('./store-commands')).containersCreate(config, values.email, operand, values.description));
    },
  },
  {
    name: 'containers list',
    summary: 'list containers',
    options: ['email', 'data'],
    help: `Usage: engram containers list [--email E] [--data DIR]

Prints one container a line: id, name and description, separated by tabs.
${ACCOUNT}
${COMMON}`,
    run: async ({ values, config }) => print(await (await import('./store-commands')).containersList(config, values.email)),
  },
  {
    name: 'keys create',
    summary: 'mint a developer key',
    options: ['name', 'level', 'containers', 'all', 'profile', 'expires-in-days', 'email', 'data'],
    help: `Usage: engram keys create --name N --level read|suggest|manage [--containers ID,ID | --all]
                          [--profile] [--expires-in-days N] [--email E] [--data DIR]

Prints the new key alone on standard output. It is shown this once.
  --name N             a name to know the key by
  --level L            read (Read), suggest (Read & write) or manage (Full access)
  --containers ID,ID   the containers the key may use
  --all                every container, including ones made later
  --profile            let the key read the profile
  --expires-in-days N  1 to 3650; omitted: never
${ACCOUNT}
${COMMON}`,
    async run({ values, config }) {
      if (!values.name || !values.level) throw new UsageError('keys create needs --name and --level.');
      if (values.all && values.containers) throw new UsageError('Give --containers or --all, not both.');
      const days = values['expires-in-days'];
      if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--expires-in-days must be a whole number of days.');
      return print(await (await import('./store-commands')).keysCreate(config, values.email, {
        name: values.name, level: values.level, containers: values.containers?.split(',').map((s) => s.trim()).filter(Boolean),
        all: values.all, profile: values.profile, expiresInDays: days === undefined ? undefined : Number(days),
      }));
    },
  },
  {
    name: 'mcp',
    summary: 'speak MCP on stdio for desktop clients, through a running server',
    options: ['url', 'key'],
    help: `Usage: engram mcp [--url ORIGIN] [--key KEY]

Serves MCP over standard input and output, answered by the running server at ORIGIN with the
developer key KEY. For desktop clients that start MCP servers as commands.
${SERVER_URL}
  --key KEY          a developer key (ENGRAM_API_KEY)`,
    async run({ values }) {
      const bridge = loadBridgeConfig(process.env);
      const key = values.key ?? bridge.key;
      if (!key) throw new UsageError('engram mcp needs a developer key: --key KEY or ENGRAM_API_KEY.');
      const url = values.url ?? bridge.url;
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--url must be an http(s) origin, not "${url}".`);
      await (await import('../mcp/stdio-bridge')).runStdioBridge({ url, key });
      return 0;
    },
  },
  {
    name: 'health',
    summary: 'check that a running server answers (for container health checks)',
    options: ['url'],
    help: `Usage: engram health [--url ORIGIN]

Asks a running server whether it is well: exits 0 when GET /healthz answers ok, 1 otherwise.
${SERVER_URL}`,
    run: async ({ values }) => (await import('./health')).health(values.url ?? loadBridgeConfig(process.env).url),
  },
  {
    name: 'backup',
    summary: 'write a consistent copy of the store, even while the server runs',
    operand: 'FILE',
    options: ['data'],
    help: `Usage: engram backup FILE [--data DIR]

Writes a consistent copy of the whole store to FILE (a new file), even while the server runs.
${COMMON}`,
    async run({ operand, config }) {
      (await import('../storage/sqlite/backup')).backupDatabase(config.dataDir, operand);
      return said(`Wrote a backup of ${config.dataDir} to ${operand}.`);
    },
  },
  {
    name: 'restore',
    summary: 'replace the store with a backup (the server must be stopped)',
    operand: 'FILE',
    options: ['data'],
    help: `Usage: engram restore FILE [--data DIR]

Replaces the store with the backup FILE after checking it. Stop the server first.
${COMMON}`,
    async run({ operand, config }) {
      (await import('../storage/sqlite/backup')).restoreDatabase(config.dataDir, operand);
      return said(`Restored ${config.dataDir} from ${operand}.`);
    },
  },
  {
    name: 'export',
    summary: "write one account's memory as JSON lines (no secrets)",
    options: ['out', 'email', 'data'],
    help: `Usage: engram export [--out FILE] [--email E] [--data DIR]

Writes one account's containers, documents, facts (with the document each was learned from and
its earlier wordings), profile and rules as JSON lines, without keys or tokens, to FILE or
standard output. Safe while the server runs: the file is one consistent snapshot.
  --out FILE         where to write (default: standard output)
${ACCOUNT}
${COMMON}`,
    async run({ values, config }) {
      const commands = await import('./store-commands');
      commands.requireStore(config); // before the file is made: no empty export beside a mistyped --data
      if (values.out) closeSync(openSync(values.out, 'w', 0o600)); // a new file is private, like the store it comes from
      const out = values.out ? Bun.file(values.out).writer() : null;
      const write = (line: string) => (out ? out.write(`${line}\n`) : process.stdout.write(`${line}\n`));
      await commands.exportMemory(config, values.email, write);
      await out?.end();
      return 0;
    },
  },
  {
    name: 'import',
    summary: 'read an export into an account',
    operand: 'FILE',
    options: ['email', 'data'],
    help: `Usage: engram import FILE [--email E] [--data DIR]

Reads an export (version 1 or 2) into an account, all or nothing. Containers are matched by
name; a document whose custom_id is already there is kept as it is. Learned documents are
indexed again for search, but no facts are extracted from them: their facts are in the file.
Documents not yet learned are learned in full; failed ones stay failed. What an earlier import
of the same export (or an overlapping one) brought is skipped. A line the API would refuse (too
long, a name with invisible characters) refuses the whole file with the API's error.
${ACCOUNT}
${COMMON}`,
    async run({ operand, values, config }) {
      if (!(await Bun.file(operand).exists())) throw new UsageError(`No file ${operand}.`);
      const summary = await (await import('./store-commands')).importMemory(config, values.email, await Bun.file(operand).text());
      for (const line of (await import('./transfer')).describeImport(summary)) said(line);
      return 0;
    },
  },
];

/** What `engram --help` and `engram` alone print: the version and one line per command of the table. */
export function overview(): string {
  // A command's FILE is part of its line here; a container's NAME is left to its own help.
  const lines = COMMANDS.map((c) => `  ${`${c.name}${c.operand === 'FILE' ? ' FILE' : ''}`.padEnd(22)}${c.summary}`);
  return `engram ${pkg.version}: a personal memory server

Usage: engram <command> [options]

Commands:
${lines.join('\n')}

Run \`engram <command> --help\` for a command's options. \`engram --version\` prints the version.`;
}

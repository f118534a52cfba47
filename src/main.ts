#!/usr/bin/env bun
/** The `engram` command: serve, owner, containers and keys. Bad arguments exit with code 2. */
import { constants as osConstants } from 'node:os';
import { parseArgs } from 'node:util';
import pkg from '../package.json' with { type: 'json' };
import * as cmd from './cli/commands';
import { readPassword } from './cli/password';
import { UsageError } from './cli/usage-error';
import { type Config, ConfigError, loadBridgeConfig, loadConfig } from './config';
import { runStdioBridge } from './mcp/stdio-bridge';
import { ServiceError } from './errors';
import { startServer } from './server';
import { BackupError, backupDatabase, restoreDatabase } from './storage/sqlite/backup';
import { DataDirBusyError } from './storage/sqlite/open';
import { ImportError } from './cli/transfer';

const COMMON = '  --data DIR         data directory (ENGRAM_DATA_DIR, default ~/.engram)';
const ACCOUNT = '  --email E          the account to act for (needed only when there are several)';

const HELP: Record<string, string> = {
  '': `engram ${pkg.version}: a personal memory server

Usage: engram <command> [options]

Commands:
  serve                 start the server
  owner create          make the owner's account
  owner token           print a session token for the owner's REST calls
  containers create     make a container
  containers list       list containers
  keys create           mint a developer key
  mcp                   speak MCP on stdio for desktop clients, through a running server
  health                check that a running server answers (for container health checks)
  backup FILE           write a consistent copy of the store, even while the server runs
  restore FILE          replace the store with a backup (the server must be stopped)
  export                write one account's memory as JSON lines (no secrets)
  import FILE           read an export into an account

Run \`engram <command> --help\` for a command's options. \`engram --version\` prints the version.`,
  serve: `Usage: engram serve [--host H] [--port P] [--data DIR]

  --host H           address to listen on (ENGRAM_HOST, default 127.0.0.1)
  --port P           port (ENGRAM_PORT, default 8787; 0 picks a free one)
${COMMON}`,
  'owner create': `Usage: engram owner create --email E [--data DIR]

Makes the owner's account. The password is read from standard input when piped, otherwise asked for.
${COMMON}`,
  'owner token': `Usage: engram owner token [--email E] [--data DIR]

Prints a session token (egs_…) for the owner's REST calls: key and container management.
${ACCOUNT}
${COMMON}`,
  'containers create': `Usage: engram containers create NAME [--description D] [--email E] [--data DIR]

Prints the new container's id alone on standard output.
  --description D    what the container holds
${ACCOUNT}
${COMMON}`,
  'containers list': `Usage: engram containers list [--email E] [--data DIR]

Prints one container a line: id, name and description, separated by tabs.
${ACCOUNT}
${COMMON}`,
  'keys create': `Usage: engram keys create --name N --level read|suggest|manage [--containers ID,ID | --all]
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
};

HELP.health = `Usage: engram health [--url ORIGIN]

Asks a running server whether it is well: exits 0 when GET /healthz answers ok, 1 otherwise.
  --url ORIGIN       the server (ENGRAM_BASE_URL, default http://127.0.0.1:8787)`;

HELP.backup = `Usage: engram backup FILE [--data DIR]

Writes a consistent copy of the whole store to FILE (a new file), even while the server runs.
${COMMON}`;

HELP.restore = `Usage: engram restore FILE [--data DIR]

Replaces the store with the backup FILE after checking it. Stop the server first.
${COMMON}`;

HELP.export = `Usage: engram export [--out FILE] [--email E] [--data DIR]

Writes one account's containers, documents, facts (with the document each was learned from and
its earlier wordings), profile and rules as JSON lines, without keys or tokens, to FILE or
standard output. Safe while the server runs: the file is one consistent snapshot.
  --out FILE         where to write (default: standard output)
${ACCOUNT}
${COMMON}`;

HELP.import = `Usage: engram import FILE [--email E] [--data DIR]

Reads an export (version 1 or 2) into an account, all or nothing. Containers are matched by
name; a document whose custom_id is already there is kept as it is. Learned documents are
indexed again for search, but no facts are extracted from them: their facts are in the file.
Documents not yet learned are learned in full; failed ones stay failed.
${ACCOUNT}
${COMMON}`;

HELP.mcp = `Usage: engram mcp [--url ORIGIN] [--key KEY]

Serves MCP over standard input and output, answered by the running server at ORIGIN with the
developer key KEY. For desktop clients that start MCP servers as commands.
  --url ORIGIN       the server (ENGRAM_BASE_URL, default http://127.0.0.1:8787)
  --key KEY          a developer key (ENGRAM_API_KEY)`;

const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  data: { type: 'string' },
  host: { type: 'string' },
  port: { type: 'string' },
  email: { type: 'string' },
  description: { type: 'string' },
  name: { type: 'string' },
  level: { type: 'string' },
  containers: { type: 'string' },
  all: { type: 'boolean' },
  profile: { type: 'boolean' },
  'expires-in-days': { type: 'string' },
  url: { type: 'string' },
  key: { type: 'string' },
  out: { type: 'string' },
} as const;

/** Which options each command takes; any other is a usage error. */
const ALLOWED: Record<string, string[]> = {
  serve: ['host', 'port', 'data'],
  'owner create': ['email', 'data'],
  'owner token': ['email', 'data'],
  'containers create': ['description', 'email', 'data'],
  'containers list': ['email', 'data'],
  'keys create': ['name', 'level', 'containers', 'all', 'profile', 'expires-in-days', 'email', 'data'],
  mcp: ['url', 'key'],
  health: ['url'],
  backup: ['data'],
  restore: ['data'],
  export: ['out', 'email', 'data'],
  import: ['email', 'data'],
};

/** Commands that take one FILE argument. */
const WITH_FILE = new Set(['backup', 'restore', 'import']);

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.version) return print(pkg.version);
  const [group = '', sub] = positionals;
  const single = ['serve', 'mcp', 'health', 'backup', 'restore', 'export', 'import'].includes(group);
  const command = single ? group : sub ? `${group} ${sub}` : group;
  // Own keys only: `engram constructor` is an unknown command, not something inherited from Object.prototype.
  if (!Object.hasOwn(HELP, command)) throw new UsageError(`Unknown command "${positionals.join(' ')}". Run \`engram --help\`.`);
  if (values.help || command === '') return print(HELP[command]!);
  const extra = positionals.slice(command.split(' ').length);
  const takesArgument = command === 'containers create' || WITH_FILE.has(command);
  if (!takesArgument && extra.length) throw new UsageError(`Unexpected argument "${extra[0]}".`);
  if (WITH_FILE.has(command) && extra.length !== 1) throw new UsageError(`${command} needs exactly one FILE.`);
  for (const name of Object.keys(values)) {
    if (!ALLOWED[command]!.includes(name)) throw new UsageError(`${command} does not take --${name}. See \`engram ${command} --help\`.`);
  }

  const env = { ...process.env };
  if (values.data) env.ENGRAM_DATA_DIR = values.data;
  if (values.host) env.ENGRAM_HOST = values.host;
  if (values.port) env.ENGRAM_PORT = values.port;
  const config = loadConfig(env);

  if (command === 'mcp') {
    const bridge = loadBridgeConfig(process.env);
    const key = values.key ?? bridge.key;
    if (!key) throw new UsageError('engram mcp needs a developer key: --key KEY or ENGRAM_API_KEY.');
    const url = values.url ?? bridge.url;
    if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new UsageError(`--url must be an http(s) origin, not "${url}".`);
    await runStdioBridge({ url, key });
    return 0;
  }
  if (command === 'health') return health(values.url ?? loadBridgeConfig(process.env).url);
  switch (command) {
    case 'serve':
      return serve(config);
    case 'owner create': {
      if (!values.email) throw new UsageError('owner create needs --email.');
      const password = await readPassword('Password: ');
      await cmd.ownerCreate(config, values.email, password);
      process.stderr.write(`Made the account for ${values.email}.\n`);
      return 0;
    }
    case 'owner token':
      return print(await cmd.ownerToken(config, values.email));
    case 'containers create': {
      if (extra.length !== 1) throw new UsageError('containers create needs exactly one NAME.');
      return print(await cmd.containersCreate(config, values.email, extra[0]!, values.description));
    }
    case 'backup':
      backupDatabase(config.dataDir, extra[0]!);
      process.stderr.write(`Wrote a backup of ${config.dataDir} to ${extra[0]}.\n`);
      return 0;
    case 'restore':
      restoreDatabase(config.dataDir, extra[0]!);
      process.stderr.write(`Restored ${config.dataDir} from ${extra[0]}.\n`);
      return 0;
    case 'export': {
      const out = values.out ? Bun.file(values.out).writer() : null;
      await cmd.exportMemory(config, values.email, (line) => (out ? out.write(`${line}\n`) : process.stdout.write(`${line}\n`)));
      await out?.end();
      return 0;
    }
    case 'import': {
      if (!(await Bun.file(extra[0]!).exists())) throw new UsageError(`No file ${extra[0]}.`);
      const summary = await cmd.importMemory(config, values.email, await Bun.file(extra[0]!).text());
      process.stderr.write(`Imported ${summary.containers} new containers, ${summary.documents} documents (${summary.existing} already there), ${summary.facts} facts, ${summary.rules} rules.\n`);
      if (summary.unsourced) {
        process.stderr.write(`${summary.unsourced} facts name a source document the file does not hold; they were imported without a source.\n`);
      }
      return 0;
    }
    case 'containers list':
      return print(await cmd.containersList(config, values.email));
    case 'keys create': {
      if (!values.name || !values.level) throw new UsageError('keys create needs --name and --level.');
      if (values.all && values.containers) throw new UsageError('Give --containers or --all, not both.');
      const days = values['expires-in-days'];
      if (days !== undefined && !/^\d+$/.test(days)) throw new UsageError('--expires-in-days must be a whole number of days.');
      return print(await cmd.keysCreate(config, values.email, {
        name: values.name, level: values.level, containers: values.containers?.split(',').map((s) => s.trim()).filter(Boolean),
        all: values.all, profile: values.profile, expiresInDays: days === undefined ? undefined : Number(days),
      }));
    }
  }
  return 0;
}

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully (see `RunningServer.stop`). A second
 * signal while stopping exits at once: the store is crash-safe, and an interrupted learning job is
 * queued again at the next start.
 */
async function serve(config: Config): Promise<number> {
  const server = await startServer(config);
  const { log } = server.services;
  let stopping = false;
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('stopping at once on a second signal', { signal });
      process.exit(128 + osConstants.signals[signal]);
    }
    stopping = true;
    log.info('stopping: finishing in-flight requests and the learning job at hand (signal again to stop at once)', { signal });
    await server.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return new Promise(() => {}); // runs until a signal
}

async function health(origin: string): Promise<number> {
  try {
    const res = await fetch(new URL('/healthz', origin), { signal: AbortSignal.timeout(4000) });
    if (res.ok) return print('ok');
    process.stderr.write(`engram: ${origin} answered ${res.status}\n`);
  } catch (err) {
    process.stderr.write(`engram: cannot reach ${origin}: ${(err as Error).message}\n`);
  }
  return 1;
}

function print(text: string): number {
  if (text) process.stdout.write(`${text}\n`);
  return 0;
}

main(Bun.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof UsageError || err instanceof ConfigError) {
      process.stderr.write(`engram: ${err.message}\n`);
      process.exit(2);
    }
    if (err instanceof ServiceError || err instanceof DataDirBusyError || err instanceof BackupError || err instanceof ImportError) {
      process.stderr.write(`engram: ${err.message}\n`);
      process.exit(1);
    }
    process.stderr.write(`engram: ${(err as Error).stack ?? err}\n`);
    process.exit(1);
  },
);

/**
 * The command table: every `engram` command described once (name, summary, help, options, operand,
 * what it does). `engram --help`, each command's help, option checking and dispatch all come from it.
 * Each command imports what it needs only when it runs, so `mcp`, `health` and help load no server.
 */
import { closeSync, existsSync, openSync } from 'node:fs';
import { basename } from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { loadBridgeConfig } from '../config';
import type { CliCommand } from './command';
import { IMPORT_FORMAT_LABELS, type ImportFormatName } from '../importers/format-labels';
import type { ImportChange } from '../operations/import-summary';
import { print } from './print';
import { UsageError } from './usage-error';

const COMMON = `  --data DIR         data directory (ENGRAM_DATA_DIR, default ~/.engram)
  --database URL     a shared PostgreSQL store, postgres://… (ENGRAM_DATABASE_URL); default: the
                     SQLite file in the data directory`;
const ACCOUNT = '  --email E          the account to act for (needed only when there are several)';
const FORMAT_HELP = Object.entries(IMPORT_FORMAT_LABELS)
  .map(([name, label]) => `                       ${name.padEnd(11)}${label}`)
  .join('\n');
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
    options: ['host', 'port', 'learning', 'data', 'database'],
    help: `Usage: engram serve [--host H] [--port P] [--learning on|off] [--data DIR] [--database URL]

  --host H           address to listen on (ENGRAM_HOST, default 127.0.0.1)
  --port P           port (ENGRAM_PORT, default 8787; 0 picks a free one)
  --learning off     answer requests only and leave learning to \`engram learn\` processes: a replica
                     of a shared PostgreSQL store (docs/scaling.md). Default on: learn here too.
${COMMON}`,
    async run({ values, config }) {
      const learning = values.learning ?? 'on';
      if (learning !== 'on' && learning !== 'off')
        throw new UsageError(`--learning must be on or off, not "${learning}".`);
      const { serve, refuseOnSqlite } = await import('./serve');
      if (learning === 'off') refuseOnSqlite(config, 'serve --learning off');
      return serve(config, { learning: learning === 'on' });
    },
  },
  {
    name: 'learn',
    summary: 'learn what is queued in a shared PostgreSQL store, without serving HTTP',
    options: ['data', 'database'],
    help: `Usage: engram learn --database URL [--data DIR]

Learns the documents and facts queued in the shared store, with as many others learning beside it
as you start; each job is taken by one of them, and one that stops mid-job leaves it to another.
Serves no HTTP. On the SQLite store it is refused: one process owns that file (\`engram serve\`
learns).
${COMMON}`,
    async run({ config }) {
      const { learn, refuseOnSqlite } = await import('./serve');
      refuseOnSqlite(config, 'learn');
      return learn(config);
    },
  },
  {
    name: 'owner create',
    summary: "make the owner's account",
    options: ['email', 'data', 'database'],
    help: `Usage: engram owner create --email E [--data DIR] [--database URL]

Makes the owner's account. The password is read from standard input when piped, otherwise asked
for twice, as the setup page does.
${COMMON}`,
    async run({ values, config }) {
      if (!values.email) throw new UsageError('owner create needs --email.');
      const [{ readNewPassword }, cmd] = await Promise.all([import('./password'), import('./store-commands')]);
      await cmd.ownerCreate(config, values.email, await readNewPassword());
      return said(`Made the account for ${values.email}.`);
    },
  },
  {
    name: 'owner token',
    summary: "print a session token for the owner's REST calls",
    options: ['email', 'data', 'database'],
    help: `Usage: engram owner token [--email E] [--data DIR] [--database URL]

Prints a session token (egs_…) for the owner's REST calls: key and container management.
${ACCOUNT}
${COMMON}`,
    run: async ({ values, config }) => print(await (await import('./store-commands')).ownerToken(config, values.email)),
  },
  {
    name: 'containers create',
    summary: 'make a container',
    operand: 'NAME',
    options: ['description', 'email', 'data', 'database'],
    help: `Usage: engram containers create NAME [--description D] [--email E] [--data DIR] [--database URL]

Prints the new container's id alone on standard output.
  --description D    what the container holds
${ACCOUNT}
${COMMON}`,
    async run({ operand, values, config }) {
      return print(
        await (await import('./store-commands')).containersCreate(config, values.email, operand, values.description),
      );
    },
  },
  {
    name: 'containers list',
    summary: 'list containers',
    options: ['email', 'data', 'database'],
    help: `Usage: engram containers list [--email E] [--data DIR] [--database URL]

Prints one container a line: id, name and description, separated by tabs.
${ACCOUNT}
${COMMON}`,
    run: async ({ values, config }) =>
      print(await (await import('./store-commands')).containersList(config, values.email)),
  },
  {
    name: 'keys create',
    summary: 'mint a developer key',
    options: ['name', 'level', 'containers', 'all', 'profile', 'expires-in-days', 'email', 'data', 'database'],
    help: `Usage: engram keys create --name N --level read|suggest|manage [--containers ID,ID | --all]
                          [--profile] [--expires-in-days N] [--email E] [--data DIR] [--database URL]

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
      if (days !== undefined && !/^\d+$/.test(days))
        throw new UsageError('--expires-in-days must be a whole number of days.');
      return print(
        await (await import('./store-commands')).keysCreate(config, values.email, {
          name: values.name,
          level: values.level,
          containers: values.containers
            ?.split(',')
            .map((s) => s.trim())
            .filter(Boolean),
          all: values.all,
          profile: values.profile,
          expiresInDays: days === undefined ? undefined : Number(days),
        }),
      );
    },
  },
  {
    name: 'keys list',
    summary: 'list developer keys',
    options: ['email', 'data', 'database'],
    help: `Usage: engram keys list [--email E] [--data DIR] [--database URL]

Prints one key a line: id, name, level and state (active, expired or revoked), separated by tabs.
${ACCOUNT}
${COMMON}`,
    run: async ({ values, config }) => print(await (await import('./store-commands')).keysList(config, values.email)),
  },
  {
    name: 'keys revoke',
    summary: 'revoke a developer key at once, on every server of the store',
    operand: 'ID',
    options: ['email', 'data', 'database'],
    help: `Usage: engram keys revoke ID [--email E] [--data DIR] [--database URL]

Revokes the key ID (from \`engram keys list\`): its next call is refused, by every running server.
${ACCOUNT}
${COMMON}`,
    async run({ operand, values, config }) {
      await (await import('./store-commands')).keysRevoke(config, values.email, operand);
      return said(`Revoked ${operand}.`);
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
      if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol))
        throw new UsageError(`--url must be an http(s) origin, not "${url}".`);
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
    name: 'wait',
    summary: 'wait until a running server has learned what was added (it is then searchable)',
    options: ['url', 'key', 'timeout'],
    help: `Usage: engram wait [--key KEY] [--url ORIGIN] [--timeout SECONDS]

Waits until the server has learned everything added so far, saying how much is left, then exits 0:
what was added is then found by search (facts a language model picks out of it may come later).
Exits 1 when the server cannot be asked, or is still learning after the timeout.
${SERVER_URL}
  --key KEY          a developer key of that server (ENGRAM_API_KEY)
  --timeout SECONDS  how long to wait at most (default 120)`,
    async run({ values }) {
      const bridge = loadBridgeConfig(process.env);
      const key = values.key ?? bridge.key;
      if (!key) throw new UsageError('engram wait needs a developer key: --key KEY or ENGRAM_API_KEY.');
      const timeout = Number(values.timeout ?? 120);
      if (!Number.isFinite(timeout) || timeout <= 0) throw new UsageError('--timeout must be a number of seconds.');
      return (await import('./health')).waitLearned(values.url ?? bridge.url, key, timeout);
    },
  },
  {
    name: 'backup',
    summary: 'write a consistent copy of the store, even while the server runs',
    operand: 'FILE',
    options: ['data', 'database'],
    help: `Usage: engram backup FILE [--data DIR] [--database URL]

Writes a consistent copy of the whole store to FILE (a new file), even while the server runs.
${COMMON}`,
    async run({ operand, config }) {
      if (config.databaseUrl)
        throw new UsageError(
          'engram backup copies the SQLite store; back a PostgreSQL store up with pg_dump (docs/scaling.md).',
        );
      (await import('../storage/sqlite/backup')).backupDatabase(config.dataDir, operand);
      return said(`Wrote a backup of ${config.dataDir} to ${operand}.`);
    },
  },
  {
    name: 'restore',
    summary: 'replace the store with a backup (the server must be stopped)',
    operand: 'FILE',
    options: ['data', 'database'],
    help: `Usage: engram restore FILE [--data DIR] [--database URL]

Replaces the store with the backup FILE after checking it. Stop the server first.
${COMMON}`,
    async run({ operand, config }) {
      if (config.databaseUrl)
        throw new UsageError(
          'engram restore replaces the SQLite store; restore a PostgreSQL store with pg_restore (docs/scaling.md).',
        );
      (await import('../storage/sqlite/backup')).restoreDatabase(config.dataDir, operand);
      return said(`Restored ${config.dataDir} from ${operand}.`);
    },
  },
  {
    name: 'export',
    summary: "write one account's memory as JSON lines (no secrets)",
    options: ['out', 'email', 'data', 'database'],
    help: `Usage: engram export [--out FILE] [--email E] [--data DIR] [--database URL]

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
      await commands.exportFile(config, values.email, write);
      await out?.end();
      return 0;
    },
  },
  {
    name: 'import',
    summary: 'bring memory in: an export, ChatGPT, Claude, the MCP memory server, Markdown notes',
    operand: 'FILE',
    options: ['from', 'container', 'dry-run', 'skip-invalid', 'email', 'data', 'database'],
    help: `Usage: engram import FILE [--from FORMAT] [--container NAME] [--dry-run] [--skip-invalid] [--email E] [--data DIR] [--database URL]

Reads FILE into an account. The whole file is checked first: a broken one, or one holding something
the API would refuse, is refused naming the file, line and column of the first problem, and nothing
of it is stored. Importing the same file again adds nothing; a conversation or note changed since
the last import replaces the one imported then (docs/importing.md).
  --from FORMAT      what FILE is (default: engram):
${FORMAT_HELP}
  --container NAME   put everything in this container (made when missing); otherwise ChatGPT's go
                     to "ChatGPT", Claude's to "Claude" and one container per project, the MCP
                     memory server's to "MCP memory", and notes to one named after their folder
  --dry-run          check FILE and print what would be added or replaced (one line each, on
                     standard output), storing nothing
  --skip-invalid     import the rest of FILE when an entry of it cannot be imported (a conversation
                     of the wrong shape, a note whose front matter is broken), and list each entry
                     left out with where it is; without it, such an entry refuses the whole file
${ACCOUNT}
${COMMON}

An Engram export (version 1 or 2) keeps its containers, matched by name. Learned documents are
indexed again but their facts are not extracted again (they are in the file); what an earlier
import of the same export brought, or what this account already holds (its own export), is skipped.`,
    async run({ operand, values, config }) {
      const format = (values.from ?? 'engram') as ImportFormatName;
      if (!Object.hasOwn(IMPORT_FORMAT_LABELS, format))
        throw new UsageError(`--from must be one of ${Object.keys(IMPORT_FORMAT_LABELS).join(', ')}; not "${format}".`);
      if (!existsSync(operand)) throw new UsageError(`No file ${operand}.`);
      const [cmd, { progressReport }, { describeImport }] = await Promise.all([
        import('./store-commands'),
        import('./progress'),
        import('../operations/import-summary'),
      ]);
      const progress = progressReport();
      const marks = { add: '+', replace: '~', move: '>' } as const;
      const changes = (c: ImportChange) =>
        process.stdout.write(
          `${marks[c.action]} ${c.kind} ${JSON.stringify(c.name.replace(/\s+/g, ' ').slice(0, 120))}${c.container ? ` in "${c.container}"` : ''}\n`,
        );
      try {
        const summary = await cmd.importFile(
          config,
          values.email,
          {
            source: { path: operand, label: basename(operand) },
            format,
            container: values.container,
            dryRun: values['dry-run'],
            skipInvalid: values['skip-invalid'],
          },
          { onProgress: progress.update, onChange: values['dry-run'] ? changes : undefined },
        );
        progress.end();
        for (const line of describeImport(summary)) said(line);
        for (const entry of summary.leftOut) said(`  ${entry}`);
      } finally {
        progress.end();
      }
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

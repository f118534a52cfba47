/**
 * The `engram` command's table and how its arguments are read (src/cli/command-line.ts), in process:
 * every command with its help, the help naming exactly the options each takes, and the one-line
 * UsageError (exit 2) for a command or option it does not know. The commands run as a person runs
 * them, from `/`, are test/e2e/rest/cli.test.ts's.
 */
import { describe, expect, it } from 'bun:test';
import { readCommandLine } from '../../src/cli/command-line';
import { COMMANDS } from '../../src/cli/command-table';
import { UsageError } from '../../src/cli/usage-error';

const read = (...argv: string[]) => readCommandLine(argv, COMMANDS);

/** The message of the UsageError reading `argv` throws. */
function usageError(...argv: string[]): string {
  try {
    read(...argv);
  } catch (err) {
    if (err instanceof UsageError) return err.message;
    throw err;
  }
  throw new Error(`${argv.join(' ')} read without a usage error`);
}

describe('the command table', () => {
  it('holds every command, each with a help that starts with its usage', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'serve',
      'learn',
      'owner create',
      'owner token',
      'containers create',
      'containers list',
      'keys create',
      'keys list',
      'keys revoke',
      'mcp',
      'health',
      'wait',
      'backup',
      'restore',
      'export',
      'import',
    ]);
    for (const { name, help } of COMMANDS) expect(help).toStartWith(`Usage: engram ${name}`);
  });

  it("names in each command's help exactly the options it takes", () => {
    for (const c of COMMANDS) {
      const named = [...new Set(c.help.match(/--[a-z-]+/g))].map((o) => o.slice(2)).sort();
      expect({ command: c.name, options: named }).toEqual({ command: c.name, options: [...c.options].sort() });
    }
  });
});

describe('reading the arguments', () => {
  it('finds the command of one or two words with its operand and options; --help and --version before it', () => {
    expect(read('containers', 'create', 'Notes', '--data', '/d')).toMatchObject({
      kind: 'run',
      command: { name: 'containers create' },
      operand: 'Notes',
      values: { data: '/d' },
    });
    expect(read()).toEqual({ kind: 'help', command: null });
    expect(read('--help')).toEqual({ kind: 'help', command: null });
    expect(read('keys', 'create', '--help')).toMatchObject({ kind: 'help', command: { name: 'keys create' } });
    expect(read('--version')).toEqual({ kind: 'version' });
  });

  it('refuses a command it does not know (names on Object.prototype too), an option the command does not take, an operand too many or missing', () => {
    for (const name of ['frobnicate', 'constructor', 'toString'])
      expect(usageError(name)).toBe(`Unknown command "${name}". Run \`engram --help\`.`);
    expect(usageError('keys', '__proto__')).toBe('Unknown command "keys __proto__". Run `engram --help`.');
    expect(usageError('serve', '--bogus')).toContain('bogus');
    expect(usageError('serve', '--email', 'me@example.org')).toBe(
      'serve does not take --email. See `engram serve --help`.',
    );
    expect(usageError('containers', 'list', 'extra')).toBe('Unexpected argument "extra".');
    expect(usageError('containers', 'create')).toBe('containers create needs exactly one NAME.');
    expect(usageError('containers', 'create', 'A', 'B')).toBe('containers create needs exactly one NAME.');
  });
});

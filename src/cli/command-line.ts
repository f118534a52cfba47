/**
 * Reading `engram`'s arguments against the command table: which command, its operand and its
 * options, or a UsageError naming the mistake. Nothing here loads the server.
 */
import { parseArgs } from 'node:util';
import { type CliCommand, OPTIONS, type OptionValues } from './command';
import { UsageError } from './usage-error';

/** What to do: print the version, print a help text, or run a command. */
export type Invocation =
  | { kind: 'version' }
  | { kind: 'help'; command: CliCommand | null }
  | { kind: 'run'; command: CliCommand; operand: string; values: OptionValues };

/** Parses argv (without the program) against `commands`; throws UsageError with the one line to print. */
export function readCommandLine(argv: string[], commands: readonly CliCommand[]): Invocation {
  const { values, positionals } = parse(argv);
  if (values.version) return { kind: 'version' };
  if (positionals.length === 0) return { kind: 'help', command: null };
  const command = commands.find((c) => c.name === positionals.slice(0, c.name.split(' ').length).join(' '));
  if (!command) throw new UsageError(`Unknown command "${positionals.join(' ')}". Run \`engram --help\`.`);
  if (values.help) return { kind: 'help', command };

  const operands = positionals.slice(command.name.split(' ').length);
  if (!command.operand && operands.length) throw new UsageError(`Unexpected argument "${operands[0]}".`);
  if (command.operand && operands.length !== 1)
    throw new UsageError(`${command.name} needs exactly one ${command.operand}.`);
  for (const name of Object.keys(values)) {
    if (!(command.options as readonly string[]).includes(name)) {
      throw new UsageError(`${command.name} does not take --${name}. See \`engram ${command.name} --help\`.`);
    }
  }
  return { kind: 'run', command, operand: operands[0] ?? '', values };
}

function parse(argv: string[]) {
  try {
    return parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
}

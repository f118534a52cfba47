/**
 * What an `engram` command is: one entry of the command table (src/cli/command-table.ts), from
 * which `--help`, option checking and dispatch all come; and the options any command may take.
 */
import type { Config } from '../config';

/** Every option any command takes, with its type; which command takes which is in the command table. */
export const OPTIONS = {
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
  data: { type: 'string' },
  database: { type: 'string' },
  learning: { type: 'string' },
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
  from: { type: 'string' },
  container: { type: 'string' },
  'dry-run': { type: 'boolean' },
  'skip-invalid': { type: 'boolean' },
  timeout: { type: 'string' },
} as const;

/** The options a command may list; `--help` and `--version` belong to every command. */
type OptionName = Exclude<keyof typeof OPTIONS, 'help' | 'version'>;

export type OptionValues = {
  [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string;
};

export interface CliCommand {
  /** One or two words: `serve`, `keys create`. */
  name: string;
  /** Its line in `engram --help`. */
  summary: string;
  /** What `engram <name> --help` prints. */
  help: string;
  /** The options it takes; any other is a usage error. */
  options: readonly OptionName[];
  /** Its one positional argument, when it takes one; it then needs exactly one. */
  operand?: 'FILE' | 'NAME' | 'ID';
  /**
   * Carries it out and resolves to the exit code; `operand` is '' for a command that takes none.
   * It imports what it needs when called, so that running one command never loads another's
   * modules (the server's above all).
   */
  run(input: { operand: string; values: OptionValues; config: Config }): Promise<number>;
}

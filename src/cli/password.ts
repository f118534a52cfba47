/** Reads a new password: all of standard input when it is piped, otherwise typed twice at prompts that do not echo. */
import { createInterface } from 'node:readline';
import { UsageError } from './usage-error';

/**
 * A new password: piped, as it comes; typed, twice, since a typing slip would lock the owner out
 * (the setup page asks twice too). Throws UsageError when the two differ.
 */
export async function readNewPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    const text = await new Response(Bun.stdin.stream()).text();
    return text.replace(/\r?\n$/, '');
  }
  const [password, again] = await askHidden(['Password: ', 'Password again: ']);
  if (password !== again) throw new UsageError('The two passwords differ; no account was made. Run the command again.');
  return password!;
}

/** Asks each question in turn on the terminal, showing the question but not what is typed. */
async function askHidden(questions: string[]): Promise<string[]> {
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  // Swallow the echo of what is typed; the questions are written to standard error directly.
  (rl as unknown as { _writeToOutput: (s: string) => void })._writeToOutput = () => {};
  // One stream of lines for every question, so that a line typed ahead is not lost between two.
  const lines = rl[Symbol.asyncIterator]();
  const answers: string[] = [];
  try {
    for (const question of questions) {
      process.stderr.write(question);
      answers.push(((await lines.next()).value as string | undefined) ?? '');
      process.stderr.write('\n');
    }
  } finally {
    rl.close();
  }
  return answers;
}

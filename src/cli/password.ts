/** Reads a password: all of standard input when it is piped, otherwise a prompt that does not echo. */
import { createInterface } from 'node:readline';

export async function readPassword(question: string): Promise<string> {
  if (!process.stdin.isTTY) {
    const text = await new Response(Bun.stdin.stream()).text();
    return text.replace(/\r?\n$/, '');
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr, terminal: true });
  const out = rl as unknown as { _writeToOutput: (s: string) => void; output: NodeJS.WritableStream };
  let prompted = false;
  out._writeToOutput = (s) => {
    // Show the question once; swallow the echo of what is typed.
    if (!prompted) out.output.write(s);
    prompted = true;
  };
  return new Promise((resolve) =>
    rl.question(question, (answer) => {
      rl.close();
      process.stderr.write('\n');
      resolve(answer);
    }),
  );
}

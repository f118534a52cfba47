/** A command's answer on standard output: the text and a newline, nothing for an empty text. */
export function print(text: string): number {
  if (text) process.stdout.write(`${text}\n`);
  return 0;
}

/**
 * Run by test/e2e/binary.test.ts inside a network namespace with loopback only: the compiled
 * binary on a fresh data directory and home (so ONNX Runtime is written out of it anew) learns a
 * few documents, refines them with the strong tier, and is asked for a paraphrase. Prints one JSON
 * line: what /healthz said once refined, and the search's contents.
 *   bun test/e2e/binary-paraphrase.ts BINARY DIR PORT
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const [binary, dir, port] = process.argv.slice(2) as [string, string, string];
mkdirSync(dir, { recursive: true });
const env = { ...process.env, ENGRAM_DATA_DIR: join(dir, 'data'), HOME: dir };
const cli = (...args: string[]) => {
  const run = Bun.spawnSync([binary, ...args], { env, stdin: new TextEncoder().encode('a long enough password\n') });
  if (run.exitCode !== 0) throw new Error(`engram ${args[0]} failed: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
};
cli('owner', 'create', '--email', 'me@example.org');
const container = cli('containers', 'create', 'Notes');
const key = cli('keys', 'create', '--name', 'offline', '--level', 'suggest', '--containers', container);
const server = Bun.spawn([binary, 'serve', '--port', port], { env, stderr: 'pipe' });
const base = `http://127.0.0.1:${port}`;
try {
  for (
    let i = 0;
    i < 200 &&
    !(await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    ));
    i++
  )
    await Bun.sleep(50);
  const headers = { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' };
  for (const content of [
    'My sister has been practising the violin every evening for her audition.',
    'The landlord finally repaired the leaking kitchen tap on Tuesday.',
    'We booked flights to Lisbon for the first week of October.',
  ])
    await fetch(`${base}/v1/documents`, { method: 'POST', headers, body: JSON.stringify({ content }) });
  let learning = { queue: 0, passages: 0, refined: 0 as number | null };
  for (let i = 0; i < 600 && !(learning.passages === 3 && learning.refined === 3); i++) {
    learning = ((await (await fetch(`${base}/healthz`, { headers })).json()) as { learning: typeof learning }).learning;
    await Bun.sleep(100);
  }
  const found = await fetch(`${base}/v1/search`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ q: 'Which musical instrument is she learning?' }),
  });
  const { results } = (await found.json()) as { results: { content: string }[] };
  console.log(JSON.stringify({ learning, results: results.map((r) => r.content) }));
} finally {
  server.kill('SIGTERM');
  await server.exited;
  process.stderr.write(await new Response(server.stderr).text());
}

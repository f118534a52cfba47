/**
 * Importing a large ChatGPT export: a generated archive of about `--mb` megabytes (photos stored as
 * they are, and conversations.json, compressed about threefold, making up the rest), imported with
 * `engram import --from chatgpt` as a separate process, as a person runs it. Prints the archive's
 * shape, the import's wall time and CPU, its phases (checking the whole file, then storing it),
 * conversations stored a second, and the command's peak resident memory (VmHWM, read from /proc
 * while it runs), which is what stays bounded however large the archive.
 *
 *   nice -n 5 bun bench/import-archive.ts [--mb 500] [--photo-share 0.5] [--keep DIR]
 *
 * `--keep DIR` keeps the archive there (made once, reused) and the store.
 *
 * `--web` imports it through the owner's Import page instead: a running server (`engram serve`),
 * signed in with the form, the archive posted as a browser posts it, the run's progress read until
 * it ends. Prints the same, and the server's peak memory before the upload and after the import.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type ArchiveShape, writeChatGptArchive } from './lib/chatgpt-export';
import { engram, ROOT, serve } from './lib/engram-process';

const { values } = parseArgs({
  options: {
    mb: { type: 'string', default: '500' },
    'photo-share': { type: 'string', default: '0.5' },
    keep: { type: 'string' },
    web: { type: 'boolean' },
  },
});
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-import-bench-'));
mkdirSync(dir, { recursive: true });
const mb = Number(values.mb);
const archive = join(dir, `chatgpt-${mb}mb.zip`);

// 20 messages of ~1.1 KB: ~24 KB of JSON a conversation, ~7.5 KB once compressed (measured on this generator).
const COMPRESSED_CONVERSATION_BYTES = 7_600;
const photos = Math.round(mb * Number(values['photo-share']));
const shape: ArchiveShape = {
  conversations: Math.round(((mb - photos) * 1e6) / COMPRESSED_CONVERSATION_BYTES),
  messages: 20,
  messageBytes: 1100,
  photos,
};

if (!existsSync(archive)) {
  const t = performance.now();
  const made = await writeChatGptArchive(archive, shape);
  console.log(
    `generated ${archive}: ${(made.archiveBytes / 1e6).toFixed(0)} MB (conversations.json ${(made.jsonBytes / 1e6).toFixed(0)} MB) in ${((performance.now() - t) / 1000).toFixed(0)} s`,
  );
}
const archiveBytes = statSync(archive).size;

const data = join(dir, 'store');
rmSync(data, { recursive: true, force: true });
engram(data, ['owner', 'create', '--email', 'bench@example.org'], 'benchmark password\n');

if (values.web) {
  await throughThePage();
  if (!values.keep) rmSync(dir, { recursive: true, force: true });
  process.exit(0);
}

/** The import through the Import page of a server run as its own process (see the file's comment). */
async function throughThePage(): Promise<void> {
  const server = await serve(data);
  const jar = new Map<string, string>();
  const send = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server.url}${path}`, {
      ...init,
      redirect: 'manual',
      headers: {
        ...(init.headers as Record<string, string>),
        Cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '),
        Origin: server.url,
      },
    });
    for (const cookie of res.headers.getSetCookie()) {
      const [pair] = cookie.split(';');
      const [name, value] = pair!.split('=');
      jar.set(name!, value ?? '');
    }
    return res;
  };
  const token = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)![1]!;
  try {
    const signIn = token(await (await send('/sign-in')).text());
    await send('/sign-in', {
      method: 'POST',
      body: new URLSearchParams({
        csrf: signIn,
        next: '/containers',
        email: 'bench@example.org',
        password: 'benchmark password',
      }),
    });
    const csrf = token(await (await send('/import')).text());
    const before = server.peakMiB();
    const load = loadavg()
      .map((l) => l.toFixed(2))
      .join(' ');
    const started = performance.now();
    const form = new FormData();
    form.append('csrf', csrf);
    form.append('format', 'chatgpt');
    form.append('file', Bun.file(archive), 'chatgpt-export.zip');
    const posted = await send('/import', { method: 'POST', body: form });
    const uploaded = performance.now();
    const run = posted.headers.get('location')!;
    let progress: { state: string; text?: string } = { state: 'running' };
    while (progress.state === 'running') {
      await Bun.sleep(200);
      progress = (await (await send(`${run}/progress`)).json()) as typeof progress;
    }
    const ended = performance.now();
    const page = await (await send(run)).text();
    const summary = /<p>(Imported [^<]*)<\/p>/.exec(page)?.[1] ?? progress.state;
    const stored = Number(/Imported \d+ new containers, (\d+) documents/.exec(summary)?.[1] ?? 0);
    console.log(
      `archive: ${(archiveBytes / 1e6).toFixed(0)} MB, ${shape.conversations} conversations, through the Import page of a running server`,
    );
    console.log(
      `upload: ${((uploaded - started) / 1000).toFixed(1)} s; import after it: ${((ended - uploaded) / 1000).toFixed(1)} s; ${(stored / ((ended - started) / 1000)).toFixed(0)} conversations a second overall`,
    );
    console.log(
      `server's peak resident memory: ${before.toFixed(0)} MiB before the upload, ${server.peakMiB().toFixed(0)} MiB at the end`,
    );
    console.log(`load average at the start (1, 5, 15 min): ${load}; ${summary}`);
  } finally {
    await server.stop();
  }
}

const kib = (status: string, field: string) =>
  Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
const load = loadavg()
  .map((l) => l.toFixed(2))
  .join(' ');
const started = performance.now();
const proc = Bun.spawn(
  [process.execPath, join(ROOT, 'src/main.ts'), 'import', archive, '--from', 'chatgpt', '--data', data],
  {
    cwd: ROOT,
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn' },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'pipe',
  },
);
let peakKiB = 0;
let cpu = 0;
const ticks = 100; // USER_HZ
const sample = setInterval(() => {
  try {
    peakKiB = Math.max(peakKiB, kib(readFileSync(`/proc/${proc.pid}/status`, 'utf8'), 'VmHWM'));
    const stat = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    cpu = (Number(stat[11]) + Number(stat[12])) / ticks;
  } catch {
    // Gone between two samples.
  }
}, 20);

// The command's plain progress lines (standard error is not a terminal), each timed as it comes.
const phases: Record<string, number> = {};
const lines: string[] = [];
const decoder = new TextDecoder();
let pending = '';
for await (const chunk of proc.stderr) {
  pending += decoder.decode(chunk, { stream: true });
  for (let i = pending.indexOf('\n'); i !== -1; i = pending.indexOf('\n')) {
    const line = pending.slice(0, i);
    pending = pending.slice(i + 1);
    lines.push(line);
    const phase = /^(Checking|Importing): 0%/.exec(line)?.[1];
    if (phase) phases[phase] = performance.now();
  }
}
const code = await proc.exited;
const ended = performance.now();
clearInterval(sample);
if (code !== 0) throw new Error(`engram import exited ${code}:\n${lines.join('\n')}`);
const summary = lines.find((l) => l.startsWith('Imported')) ?? '';
const stored = Number(/Imported \d+ new containers, (\d+) documents/.exec(summary)?.[1] ?? 0);
const seconds = (ended - started) / 1000;
const checking = ((phases.Importing ?? ended) - (phases.Checking ?? started)) / 1000;
const importing = (ended - (phases.Importing ?? ended)) / 1000;

console.log(
  `archive: ${(archiveBytes / 1e6).toFixed(0)} MB, ${shape.conversations} conversations of ${shape.messages} messages, ${shape.photos} photos of 1 MB`,
);
console.log(
  `import: ${seconds.toFixed(1)} s wall (checking ${checking.toFixed(1)} s, storing ${importing.toFixed(1)} s), ${cpu.toFixed(1)} CPU-s`,
);
console.log(
  `conversations stored: ${stored}, ${(stored / seconds).toFixed(0)} a second overall (${(stored / importing).toFixed(0)} a second while storing)`,
);
console.log(`peak resident memory of the command: ${(peakKiB / 1024).toFixed(0)} MiB`);
console.log(`load average at the start (1, 5, 15 min): ${load}; ${summary}`);
if (!values.keep) rmSync(dir, { recursive: true, force: true });

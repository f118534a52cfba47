/**
 * Start to first answer: `engram serve` (from this checkout, and each command of `--commands`, such
 * as a compiled binary or another checkout's `bun …/src/main.ts`) is started again and again on one
 * seeded store whose passages are all refined, and
 * timed from spawn to its first healthy `GET /healthz` and to its first search answer (which needs
 * the strong model for the query). Also the server's CPU time (user + system, from /proc) at that
 * answer and its peak memory (VmHWM) a few seconds later. Starts alternate between the targets, so
 * a change in the machine's load falls on both.
 *
 *   bun bench/start-up.ts [--rounds 6] [--commands 'dist/engram,bun ../old/src/main.ts'] [--embedder builtin|fast] [--passages 200] [--keep DIR]
 */
import { readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { percentile } from './lib/corpus';
import { freePort, ROOT } from './lib/engram-process';
import { seedStore } from './lib/seed';

const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    commands: { type: 'string' },
    embedder: { type: 'string', default: 'builtin' },
    passages: { type: 'string', default: '200' },
    keep: { type: 'string' },
  },
});
const dir = values.keep ?? mkdtempSync(join(tmpdir(), 'engram-start-'));
const seed = await seedStore(dir, Number(values.passages), values.embedder!, values.keep !== undefined, true);
const TICK_MS = 1000 / 100; // /proc/<pid>/stat counts CPU time in clock ticks of 10 ms on Linux

interface Start {
  healthMs: number;
  searchMs: number;
  cpuMs: number;
  peakMiB: number;
}

const targets: Record<string, string[]> = {
  'bun src/main.ts serve': [process.execPath, join(ROOT, 'src/main.ts'), 'serve'],
};
for (const command of values.commands?.split(',') ?? [])
  targets[`${command} serve`] = [...command.trim().split(/\s+/), 'serve'];

function cpuMs(pid: number): number {
  // Fields after the command's closing parenthesis: state is 3rd, utime 14th, stime 15th overall.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function startOnce(command: string[]): Promise<Start> {
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const t0 = performance.now();
  const proc = Bun.spawn([...command, '--port', String(port), '--data', dir], {
    cwd: ROOT,
    env: {
      ...process.env,
      ENGRAM_LOG_LEVEL: 'warn',
      ENGRAM_HOST: '127.0.0.1',
      ENGRAM_EMBEDDER: values.embedder!,
      ENGRAM_RATE_LIMIT_PER_MIN: '1000000',
    },
    stdin: 'ignore',
    stdout: 'ignore',
    stderr: 'inherit',
  });
  try {
    let healthMs = 0;
    while (!healthMs) {
      if (proc.exitCode !== null) throw new Error(`serve exited with ${proc.exitCode}`);
      if (performance.now() - t0 > 30_000) throw new Error('no /healthz answer within 30 s');
      if (
        await fetch(`${url}/healthz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        healthMs = performance.now() - t0;
      else await Bun.sleep(5);
    }
    const res = await fetch(`${url}/v1/search`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${seed.key}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ q: 'what did they say about the harbour', limit: 10 }),
    });
    await res.json();
    if (!res.ok) throw new Error(`search answered ${res.status}`);
    const searchMs = performance.now() - t0;
    const cpu = cpuMs(proc.pid);
    await Bun.sleep(3000); // the strong model's load, if still going, peaks in here
    const peakMiB = Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))![1]) / 1024;
    return { healthMs, searchMs, cpuMs: cpu, peakMiB };
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
  }
}

const results = new Map<string, Start[]>(Object.keys(targets).map((t) => [t, []]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, command] of Object.entries(targets)) results.get(name)!.push(await startOnce(command));
}
if (!values.keep) rmSync(dir, { recursive: true, force: true });

const med = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );
const range = (xs: number[]) => `${Math.min(...xs).toFixed(0)}–${Math.max(...xs).toFixed(0)}`;
console.log(
  `load average ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}; ${seed.passages} passages, all refined; ENGRAM_EMBEDDER=${values.embedder}; ${values.rounds} starts each, medians (range)\n`,
);
console.log('| target | first /healthz ms | first search answer ms | server CPU ms at that answer | peak RSS MiB |');
console.log('|---|---|---|---|---|');
for (const [name, runs] of results) {
  const col = (f: (s: Start) => number) => `${med(runs.map(f)).toFixed(0)} (${range(runs.map(f))})`;
  console.log(
    `| ${name} | ${col((s) => s.healthMs)} | ${col((s) => s.searchMs)} | ${col((s) => s.cpuMs)} | ${col((s) => s.peakMiB)} |`,
  );
}

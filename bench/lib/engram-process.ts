/**
 * Runs `engram` commands and the server as separate processes, as a user would, for benchmarks.
 * The server's standard error goes to the terminal and to a log beside the data directory; at
 * stop both are swept for secrets (test/helpers/secret-sweep.ts) and the log is removed.
 */
import { readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sweepThenRemove } from '../../test/helpers/secret-sweep';

export const ROOT = join(import.meta.dir, '../..');

/** One `engram` command on a data directory, as a user runs it: its standard output, trimmed. Throws when it fails. */
export function engram(dataDir: string, args: string[], stdin?: string, env: Record<string, string> = {}): string {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args, '--data', dataDir], {
    cwd: ROOT,
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn', ...env },
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
  });
  if (run.exitCode !== 0) throw new Error(`engram ${args.join(' ')} exited ${run.exitCode}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** A loopback port the kernel just handed out and that is free again. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const { port } = probe;
  probe.stop(true);
  return port;
}

export interface Served {
  url: string;
  proc: ReturnType<typeof Bun.spawn>;
  /** Milliseconds from spawn to the first healthy /healthz. */
  startMs: number;
}

/**
 * One search of ten hits over HTTP of every container in the key's reach, as an app asks it (a
 * store spread over several containers by bench/spread-containers.ts too); throws when it is not
 * answered 200.
 */
export async function searchOnce(url: string, key: string, q: string): Promise<void> {
  const res = await fetch(`${url}/v1/search`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ q, container: '*', limit: 10 }),
  });
  if (!res.ok) throw new Error(`search answered ${res.status}`);
  await res.json();
}

/**
 * Starts `engram serve` on a free 127.0.0.1 port (the limiter out of the way, warnings and up
 * logged) and resolves once /healthz answers; throws if it exits first or takes over 30 s.
 * Its standard error goes to `stderr`: a file, a pipe for the caller to read, or the terminal.
 * `root`: the source tree whose server runs (this one unless another release is measured).
 */
export async function spawnServer(
  dataDir: string,
  env: Record<string, string> = {},
  stderr: string | 'pipe' | 'inherit' = 'inherit',
  args: string[] = [],
  root = ROOT,
): Promise<Served> {
  const port = freePort();
  const t0 = performance.now();
  const proc = Bun.spawn(
    [process.execPath, join(root, 'src/main.ts'), 'serve', ...args, '--port', String(port), '--data', dataDir],
    {
      cwd: root,
      env: {
        ...process.env,
        ENGRAM_LOG_LEVEL: 'warn',
        ENGRAM_HOST: '127.0.0.1',
        ENGRAM_RATE_LIMIT_PER_MIN: '1000000',
        ...env,
      },
      stdin: 'ignore',
      stdout: 'ignore',
      stderr: stderr === 'pipe' || stderr === 'inherit' ? stderr : Bun.file(stderr),
    },
  );
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (proc.exitCode !== null) throw new Error(`serve exited with ${proc.exitCode}`);
    if (
      await fetch(`${url}/healthz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, proc, startMs: performance.now() - t0 };
    await Bun.sleep(25);
  }
  proc.kill('SIGKILL');
  throw new Error('serve did not answer /healthz within 30 s');
}

/** An account with one container and a Full-access key over it (in the store `env` names: ENGRAM_DATABASE_URL, or the data directory's). */
export function setUp(dataDir: string, env: Record<string, string> = {}): { container: string; key: string } {
  engram(dataDir, ['owner', 'create', '--email', 'bench@example.org'], 'benchmark password\n', env);
  const container = engram(dataDir, ['containers', 'create', 'Bench'], undefined, env);
  const key = engram(
    dataDir,
    ['keys', 'create', '--name', 'bench', '--level', 'manage', '--all', '--profile'],
    undefined,
    env,
  );
  return { container, key };
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** Where its standard error is written too: `<dataDir>.serve.log`. */
  logFile: string;
  /** Peak resident memory so far, in MiB (VmHWM). */
  peakMiB(): number;
  /** Resident memory now, in MiB (VmRSS). */
  rssMiB(): number;
  /** CPU time used so far (user + system), in seconds. */
  cpuSeconds(): number;
  /** Stops it, then sweeps the data directory and the log for secrets (throws SecretLeakError on a finding). */
  stop(): Promise<void>;
}

/** A figure of /proc/PID/status given in kB, in MiB. */
function statusMiB(pid: number, key: string): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)![1]) / 1024;
}

/** `bench-key`: the seeding keeps the key of a kept directory there on purpose (bench/lib/seed.ts). */
const HARNESS_FILES = ['bench-key'];

export async function serve(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const logFile = `${dataDir.replace(/\/+$/, '')}.serve.log`;
  rmSync(logFile, { force: true });
  const { url, proc } = await spawnServer(dataDir, env, 'pipe');
  const log = Bun.file(logFile).writer();
  const copied = (async () => {
    for await (const chunk of proc.stderr as ReadableStream<Uint8Array>) {
      process.stderr.write(chunk);
      log.write(chunk);
    }
    await log.end();
  })();
  return {
    url,
    pid: proc.pid,
    logFile,
    peakMiB: () => statusMiB(proc.pid, 'VmHWM'),
    rssMiB: () => statusMiB(proc.pid, 'VmRSS'),
    cpuSeconds: () => {
      // utime and stime, in clock ticks of 1/100 s.
      const fields = readFileSync(`/proc/${proc.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    },
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
      await copied;
      sweepThenRemove(
        {
          harness: `bench:${basename(process.argv[1] ?? 'engram-process')}`,
          stores: [dataDir],
          logs: [logFile],
          exclude: HARNESS_FILES,
        },
        logFile,
      );
    },
  };
}

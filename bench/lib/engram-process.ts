/**
 * Runs `engram` commands and the server as separate processes, as a user would, for benchmarks.
 * The server's standard error goes to the terminal and to a log beside the data directory; at
 * stop both are swept for secrets (test/helpers/secret-sweep.ts) and the log is removed.
 */
import { rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { sweepThenRemove } from '../../test/helpers/secret-sweep';

export const ROOT = join(import.meta.dir, '../..');

export function engram(dataDir: string, args: string[], stdin?: string, env: Record<string, string> = {}): string {
  const run = Bun.spawnSync([process.execPath, join(ROOT, 'src/main.ts'), ...args, '--data', dataDir], {
    stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin), env: { ...process.env, ...env },
  });
  if (run.exitCode !== 0) throw new Error(`engram ${args.join(' ')}: ${run.stderr.toString()}`);
  return run.stdout.toString().trim();
}

/** An account with one container and a Full-access key over it. */
export function setUp(dataDir: string): { container: string; key: string } {
  engram(dataDir, ['owner', 'create', '--email', 'bench@example.org'], 'benchmark password\n');
  const container = engram(dataDir, ['containers', 'create', 'Bench']);
  const key = engram(dataDir, ['keys', 'create', '--name', 'bench', '--level', 'manage', '--all', '--profile']);
  return { container, key };
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** Where its standard error is written too: `<dataDir>.serve.log`. */
  logFile: string;
  /** Peak resident memory so far, in MiB (VmHWM). */
  peakMiB(): number;
  /** Stops it, then sweeps the data directory and the log for secrets (throws SecretLeakError on a finding). */
  stop(): Promise<void>;
}

/** `bench-key`: the seeding keeps the key of a kept directory there on purpose (bench/lib/seed.ts). */
const HARNESS_FILES = ['bench-key'];

export async function serve(dataDir: string, env: Record<string, string> = {}): Promise<ServerProcess> {
  const listener = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  const logFile = `${dataDir.replace(/\/+$/, '')}.serve.log`;
  rmSync(logFile, { force: true });
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src/main.ts'), 'serve', '--port', String(port), '--data', dataDir], {
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn', ENGRAM_RATE_LIMIT_PER_MIN: '1000000', ...env }, stderr: 'pipe',
  });
  const log = Bun.file(logFile).writer();
  const copied = (async () => {
    for await (const chunk of proc.stderr) {
      process.stderr.write(chunk);
      log.write(chunk);
    }
    await log.end();
  })();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (await fetch(`${url}/healthz`).then((r) => r.ok, () => false)) break;
    await Bun.sleep(100);
  }
  return {
    url,
    pid: proc.pid,
    logFile,
    peakMiB: () => {
      const status = require('node:fs').readFileSync(`/proc/${proc.pid}/status`, 'utf8') as string;
      return Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024;
    },
    async stop() {
      proc.kill('SIGTERM');
      await proc.exited;
      await copied;
      sweepThenRemove({ harness: `bench:${basename(process.argv[1] ?? 'engram-process')}`, stores: [dataDir], logs: [logFile], exclude: HARNESS_FILES }, logFile);
    },
  };
}

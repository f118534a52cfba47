/**
 * `engram health` and `engram wait`: each asks a running server for /healthz, so it loads nothing
 * else (a container's health check; a script waiting for what it added to be learned).
 */
import { print } from './print';

/** Exits 0 when `origin` answers /healthz with a 2xx within 4 s; otherwise says why on standard error and exits 1. */
export async function health(origin: string): Promise<number> {
  try {
    const res = await fetch(new URL('/healthz', origin), { signal: AbortSignal.timeout(4000) });
    if (res.ok) return print('ok');
    process.stderr.write(`engram: ${origin} answered ${res.status}\n`);
  } catch (err) {
    process.stderr.write(`engram: cannot reach ${origin}: ${(err as Error).message}\n`);
  }
  return 1;
}

/** How often `wait` asks. */
const POLL_MS = 500;

/**
 * Waits until the server has learned everything added so far (no learning job queued or running;
 * the facts a language model picks out of it are apart and may come later),
 * saying on standard error how many are left whenever that changes. Exits 0 then; 1 when the server
 * cannot be asked (or does not take the key), or when it is still learning after `timeoutSeconds`.
 */
export async function waitLearned(origin: string, key: string, timeoutSeconds: number): Promise<number> {
  const until = Date.now() + timeoutSeconds * 1000;
  let told: number | null = null;
  for (;;) {
    let queue: unknown;
    try {
      const res = await fetch(new URL('/healthz', origin), {
        headers: { Authorization: `Bearer ${key}` },
        signal: AbortSignal.timeout(4000),
      });
      queue = res.ok ? ((await res.json()) as { learning?: { queue?: unknown } }).learning?.queue : undefined;
      if (typeof queue !== 'number') {
        process.stderr.write(
          `engram: ${origin} answered ${res.status} without its learning figures: is the key one of this server's?\n`,
        );
        return 1;
      }
    } catch (err) {
      process.stderr.write(`engram: cannot reach ${origin}: ${(err as Error).message}\n`);
      return 1;
    }
    if (queue === 0) {
      process.stderr.write('Learned: everything added so far is searchable.\n');
      return 0;
    }
    if (queue !== told) process.stderr.write(`Learning: ${queue} ${queue === 1 ? 'job' : 'jobs'} to go…\n`);
    told = queue;
    if (Date.now() >= until) {
      process.stderr.write(
        `engram: still learning after ${timeoutSeconds} s (${queue} to go); run it again to wait more.\n`,
      );
      return 1;
    }
    await Bun.sleep(POLL_MS);
  }
}

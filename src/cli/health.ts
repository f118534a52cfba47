/** `engram health`: asks a running server for /healthz; for container health checks, so it loads nothing else. */
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

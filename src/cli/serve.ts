/** `engram serve`: the server in the foreground, stopped gracefully by a signal. */
import { constants as osConstants } from 'node:os';
import type { Config } from '../config';
import { startServer } from '../server';

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully (see `RunningServer.stop`). A second
 * signal while stopping exits at once: the store is crash-safe, and an interrupted learning job is
 * queued again at the next start.
 */
export async function serve(config: Config): Promise<number> {
  const server = await startServer(config);
  const { log } = server.services;
  let stopping = false;
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('stopping at once on a second signal', { signal });
      process.exit(128 + osConstants.signals[signal]);
    }
    stopping = true;
    log.info('stopping: finishing in-flight requests and the learning job at hand (signal again to stop at once)', { signal });
    await server.stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return new Promise(() => {}); // runs until a signal
}

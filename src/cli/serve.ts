/**
 * `engram serve` and `engram learn`: a server, or a learner of a shared store, in the foreground,
 * stopped gracefully by a signal.
 */
import { constants as osConstants } from 'node:os';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { createEmbedders, type EmbedderTiers, strongIdentity } from '../embedders/create-embedders';
import { LearningSupervisor } from '../learning/learning-supervisor';
import { useEmbeddingModels } from '../learning/queue';
import { createLogger, type Logger } from '../log';
import { SearchActivity } from '../search/search-activity';
import { startServer } from '../server';
import { openStore, shownUrl } from '../storage/open-store';
import { UsageError } from './usage-error';

/** Refuses a way of running that needs a shared store, on the SQLite file: one process owns it, and learns in it. */
export function refuseOnSqlite(config: Config, command: string): void {
  if (config.databaseUrl) return;
  throw new UsageError(
    `engram ${command} needs a shared PostgreSQL store (--database URL or ENGRAM_DATABASE_URL). The SQLite store is one ` +
      'file that one process owns: `engram serve` answers requests and learns in it. See docs/scaling.md.',
  );
}

/**
 * Runs the server until SIGTERM or SIGINT, then stops gracefully (see `RunningServer.stop`). A second
 * signal while stopping exits at once: the store is crash-safe, and an interrupted learning job is
 * queued again at the next start (on a shared store, taken again when its lease ends).
 */
export async function serve(config: Config, options: { learning: boolean } = { learning: true }): Promise<number> {
  const server = await startServer(config, { learning: options.learning });
  const finishing = options.learning ? 'in-flight requests and the learning job at hand' : 'in-flight requests';
  return untilSignal(server.services.log, finishing, () => server.stop());
}

/**
 * Learns what is queued in the shared store, beside any other learners, until SIGTERM or SIGINT:
 * the job at hand is finished first. Records this learner's models for the store, as a server does
 * at start (the models' vectors are what replicas search).
 */
export async function learn(config: Config): Promise<number> {
  const log = createLogger(config.logLevel);
  const { store } = await openStore(config, systemClock.now(), { connections: 1 });
  let embedders: EmbedderTiers;
  try {
    embedders = await createEmbedders(config);
    await useEmbeddingModels(store, embedders, systemClock.now());
  } finally {
    await store.close();
  }
  // The thread's reports of passages learned are for a search index in this process: there is none,
  // replicas follow the store. It takes the strong model's identity from here: hashed once.
  const learning = await LearningSupervisor.start(config, () => {}, log, {
    strongIdentity: strongIdentity(embedders),
    strongModel: null,
    searches: new SearchActivity().buffer,
  });
  log.info('engram learning', { database: shownUrl(config.databaseUrl!) });
  return untilSignal(log, 'the learning job at hand', () => learning.stop());
}

/** Waits for SIGTERM or SIGINT, then `stop`s and exits; a second signal while stopping exits at once. */
function untilSignal(log: Logger, finishing: string, stop: () => Promise<void>): Promise<number> {
  let stopping = false;
  const onSignal = async (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn('stopping at once on a second signal', { signal });
      process.exit(128 + osConstants.signals[signal]);
    }
    stopping = true;
    log.info(`stopping: finishing ${finishing} (signal again to stop at once)`, { signal });
    await stop();
    log.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return new Promise(() => {}); // runs until a signal
}

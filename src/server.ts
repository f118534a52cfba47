/**
 * Starting and stopping a server: lock the data directory, open the store, start learning and
 * HTTP. Used by `engram serve` and by the tests, which start it in process on an ephemeral port.
 */
import { createApp } from './app';
import { type Clock, systemClock } from './clock';
import type { Config } from './config';
import { LearningRunner } from './learning/runner';
import { createLogger, type Logger } from './log';
import type { Services } from './operations/operation';
import { RateLimiter } from './operations/rate-limiter';
import { UsageRecorder } from './operations/usage-recorder';
import { lockDataDir, openDatabase } from './storage/sqlite/open';
import { type Site, siteFor } from './site';
import { SqliteStore } from './storage/sqlite/sqlite-store';

export interface RunningServer {
  url: string;
  site: Site;
  services: Services;
  learning: LearningRunner;
  stop(): Promise<void>;
}

export interface ServerOptions {
  clock?: Clock;
  log?: Logger;
  /** Tests step learning by hand with `learning.drain()` instead of the background loop. */
  manualLearning?: boolean;
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  const lock = lockDataDir(config.dataDir);
  let store: SqliteStore;
  try {
    store = new SqliteStore(openDatabase(config.dataDir, clock.now()));
  } catch (err) {
    lock.release();
    throw err;
  }
  const learning = new LearningRunner(store, clock, log);
  const usage = new UsageRecorder(store);
  const services: Services = {
    store, clock, log, usage, limiter: new RateLimiter(clock, config.rateLimitPerMin), notifyQueued: () => learning.notify(),
  };
  // The site is known once the server listens (the port may be 0); requests come only after that.
  const site: Site = { baseUrl: '', origins: new Set() };
  const app = createApp(services, site);
  const http = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, maxRequestBodySize: 16 * 1024 * 1024 });
  Object.assign(site, siteFor(config, http.port!));
  if (!options.manualLearning) learning.start();
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${http.port}`;
  log.info('engram listening', { url, base_url: site.baseUrl, data_dir: config.dataDir });
  return {
    url,
    site,
    services,
    learning,
    async stop() {
      await http.stop();
      await learning.stop();
      usage.flush();
      store.close();
      lock.release();
    },
  };
}

/**
 * The services every operation runs with (`Services`, operations/operation.ts), composed in one
 * place for the server (server.ts), the `engram` commands (cli/store-commands.ts) and the tests.
 * The store is opened by the caller, which closes it after `close`.
 */
import { TurnBudget } from './agent/turn-budget';
import { type Clock, systemClock } from './clock';
import type { Config } from './config';
import type { EmbedderTiers } from './embedders/create-embedders';
import { ModelClient } from './language-model/model-client';
import { createLogger, type Logger } from './log';
import { AccessRecorder } from './operations/calls/access-recorder';
import type { Services } from './operations/operation';
import { RateLimiter, SharedRateLimiter } from './operations/calls/rate-limiter';
import { UsageRecorder } from './operations/calls/usage-recorder';
import type { SearchActivity } from './search/search-activity';
import { SearchEngine } from './search/search-engine';
import type { Store } from './storage/store';
import type { SharedLimits } from './storage/shared-limits';
import type { VectorFeed } from './storage/vector-feed';

export interface ServiceOptions {
  clock?: Clock;
  /** The configuration's log level when absent. */
  log?: Logger;
  /**
   * The models search embeds queries with, the same that embed the passages; absent, search is by
   * keyword alone and leaves the vector indexes' files alone (a command's search).
   */
  embedders?: EmbedderTiers;
  /** Searches in flight, shared with the learning thread so that it yields to them. */
  activity?: SearchActivity;
  /** Wakes learning when work is queued; absent, the queue waits for the learner's next look (a command's writes). */
  notifyQueued?: () => void;
  /** A shared store's vector feed, which the search indexes follow (openStore gives it); absent where one process owns the store. */
  feed?: VectorFeed | null;
  /** A shared store's limits (openStore gives them): the limiter and the turn budget count across processes. */
  limits?: SharedLimits | null;
}

export interface OpenServices extends Services {
  /**
   * Writes what the recorders hold, then saves and frees the search indexes (after the embedders'
   * threads), once nothing calls an operation any more. The store stays open: it is its opener's.
   */
  close(): Promise<void>;
}

export async function createServices(
  store: Store,
  config: Config,
  options: ServiceOptions = {},
): Promise<OpenServices> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  const embedders = options.embedders ?? { fast: null, strong: null };
  const search = await SearchEngine.open({
    store,
    log,
    embedders,
    dataDir: config.dataDir,
    activity: options.activity,
    saveAfterMs: config.indexSaveSeconds * 1000,
    feed: options.feed,
  });
  const usage = new UsageRecorder(store);
  const accessLog = new AccessRecorder(store, clock, log);
  return {
    store,
    clock,
    log,
    usage,
    accessLog,
    search,
    indexes: search.indexes,
    limiter: options.limits
      ? new SharedRateLimiter(options.limits, clock, config.rateLimitPerMin)
      : new RateLimiter(clock, config.rateLimitPerMin),
    notifyQueued: options.notifyQueued ?? (() => {}),
    model: config.model ? new ModelClient(config.model) : null,
    turns: new TurnBudget(undefined, options.limits ?? null),
    async close() {
      await search.close();
      await usage.flush();
      await accessLog.stop();
    },
  };
}

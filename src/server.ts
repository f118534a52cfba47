/**
 * Starting and stopping a server: lock the data directory, open the store, build the search
 * index, start learning (a worker thread) and HTTP. Used by `engram serve` and by the tests, which
 * start it in process on an ephemeral port.
 */
import nodeHttp from 'node:http';
import { join } from 'node:path';
import { createApp } from './app';
import { type Clock, systemClock } from './clock';
import type { Config } from './config';
import { TrustedProxies } from './trusted-proxies';
import { PARSER_HEADER_BYTES } from './http/middleware/header-limit';
import { createEmbedders, strongIdentity } from './embedders/create-embedders';
import { type Learning, LearningSupervisor } from './learning/learning-supervisor';
import { useEmbeddingModels } from './learning/queue';
import { LearningRunner } from './learning/runner';
import { urlReader } from './learning/url-reader';
import { createLogger, type Logger } from './log';
import { FactExtractor } from './learning/fact-extractor';
import type { Services } from './operations/operation';
import type { ClientMetadataOptions } from './oauth/client-metadata';
import { QueryEmbedder } from './search/query-embedder';
import { SearchActivity } from './search/search-activity';
import { createServices, type OpenServices } from './services';
import { type Site, siteFor } from './site';
import { type OpenedStore, openStore, shownUrl } from './storage/open-store';
import { lockDataDir } from './storage/sqlite/open';
import { IMPORTS_DIR } from './data-dir';
import type { VectorTier } from './storage/store';
import { ImportRuns } from './web/import-runs';

export interface RunningServer {
  url: string;
  site: Site;
  services: Services;
  learning: Learning;
  /**
   * Stops gracefully: no new connections; in-flight requests and the current learning job finish
   * (side by side); usage records are written and the store is closed.
   */
  stop(): Promise<void>;
}

export interface ServerOptions {
  clock?: Clock;
  log?: Logger;
  /** Tests run learning in process and step it with `learning.drain()`, on the test's clock. */
  manualLearning?: boolean;
  /** Tests stand in for DNS and the network when apps' client metadata documents are fetched. */
  clientMetadata?: Pick<ClientMetadataOptions, 'lookup' | 'fetch' | 'timeoutMs'>;
  /**
   * False: HTTP only, a replica of a shared store whose learning `engram learn` processes do
   * (serve --learning off; the CLI refuses it on SQLite, which one process owns).
   */
  learning?: boolean;
}

/** A replica's learning: none here; the shared store's learners look at the queue on their own. */
const NO_LEARNING: Learning = { notify: () => {}, drain: async () => 0, stop: async () => {} };

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  // The data directory is this process's own on either engine (its search indexes, imports).
  const lock = lockDataDir(config.dataDir);
  let opened: OpenedStore;
  try {
    opened = await openStore(config, clock.now(), { keywordReader: log });
  } catch (err) {
    lock.release();
    throw err;
  }
  const { store, feed, limits } = opened;
  const ownsStore = opened.engine === 'sqlite';
  const embedders = await createEmbedders(config, { strong: (identity) => new QueryEmbedder(identity) });
  if (!embedders.fast) log.info('no embedder configured: search is keyword-only');
  // A different model than the stored vectors came from: they are dropped and made again. Passages
  // a server learned without an embedder are embedded once one is back.
  for (const tier of await useEmbeddingModels(store, embedders, clock.now()))
    log.info('passages will be embedded in the background', { tier, model: embedders[tier]?.id });
  // Where several processes share the store, the jobs of a learner that stopped are taken again when their leases end.
  const requeued = ownsStore ? await store.jobs.requeueRunning(clock.now()) : 0;
  if (requeued) log.info('learning resumes jobs a stopped server left running', { jobs: requeued });
  // No request runs yet: a write left pending by a stopped server has an unknown outcome. Not so on
  // a shared store, where other replicas' writes are pending right now.
  await store.idempotency.deleteExpired(clock.now());
  const interrupted = ownsStore ? await store.idempotency.interruptPending() : 0;
  if (interrupted)
    log.warn('writes a stopped server left running are marked interrupted', { idempotency_keys: interrupted });
  // The learning thread boots (its imports, its store, the fast model: a few hundred ms) while this
  // thread opens the search index. The thread's reports of passages indexed wait for it (`onIndexed`);
  // vectors stored before the indexes are opened are read by them.
  const ready = Promise.withResolvers<OpenServices>();
  ready.promise.catch(() => {}); // a failure to open is the start's, below
  // On a shared store the indexes follow its feed, which carries this process's learning as well as
  // every other's: a report waits until the feed has brought what it names.
  const onIndexed = async (tier: VectorTier, ids: number[]) => {
    const { indexes } = await ready.promise;
    return feed ? indexes.caughtUp() : indexes.indexPassages(tier, ids);
  };
  // Refinement runs the query thread's session: the process holds the strong model once.
  const queryModel = embedders.strong instanceof QueryEmbedder ? embedders.strong : null;
  const strongModel = queryModel && (() => queryModel.shared());
  // Searches in flight, which refinement's model runs keep out of the way of.
  const searches = new SearchActivity();
  const learns = options.learning ?? true;
  const thread =
    options.manualLearning || !learns
      ? null
      : LearningSupervisor.start(config, onIndexed, log, {
          strongIdentity: strongIdentity(embedders),
          strongModel,
          searches: searches.buffer,
        });
  let learning: Learning | null = null;
  let services: OpenServices;
  try {
    services = await createServices(store, config, {
      clock,
      log,
      embedders,
      activity: searches,
      notifyQueued: () => learning?.notify(),
      feed,
      limits,
    });
    ready.resolve(services);
  } catch (err) {
    ready.reject(err);
    await thread?.then(
      (t) => t.stop(),
      () => {},
    );
    throw err;
  }
  if (thread) {
    learning = await thread;
  } else if (!learns) {
    learning = NO_LEARNING;
  } else {
    // The services' model client, not a second one over the same configuration.
    const extractor = services.model && new FactExtractor(services.model, embedders.fast);
    learning = new LearningRunner({
      store,
      clock,
      log,
      embedder: embedders.fast,
      strong: embedders.strong,
      readUrl: urlReader(config),
      onIndexed,
      extractor,
    });
  }
  const running = learning;
  services.accessLog.startPruning(config.accessLogDays);
  // The site is known once the server listens (the port may be 0); requests come only after that.
  const site: Site = {
    baseUrl: '',
    origins: new Set(),
    ownOrigins: new Set(),
    trustedProxies: new TrustedProxies(config.trustedProxies),
  };
  const imports = new ImportRuns(join(config.dataDir, IMPORTS_DIR), clock);
  const app = createApp(
    services,
    site,
    {
      consentTtlDays: config.consentTtlDays,
      clientMetadata: { allowPrivate: config.fetchAllowPrivate, ...options.clientMetadata },
    },
    imports,
  );
  // Bun's own body limit would answer a bare 413 before the app sees the request; the app's limit
  // (app.ts) refuses every oversized body itself, in the envelope, without reading it past the limit.
  // Bun answers headers over its parser's limit with a bare 431 that no hook sees; node:http's
  // setting is the one Bun.serve reads. Raised so the app's smaller limit answers in the envelope.
  (nodeHttp as { maxHeaderSize: number }).maxHeaderSize = PARSER_HEADER_BYTES;
  const http = Bun.serve({
    hostname: config.host,
    port: config.port,
    fetch: app.fetch,
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
  });
  Object.assign(site, siteFor(config, http.port!));
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${http.port}`;
  log.info('engram listening', {
    url,
    base_url: site.baseUrl,
    data_dir: config.dataDir,
    ...(config.databaseUrl ? { database: shownUrl(config.databaseUrl), learning: learns } : {}),
  });
  return {
    url,
    site,
    services,
    learning: running,
    async stop() {
      await Promise.all([http.stop(), running.stop(), imports.stop()]);
      await services.close();
      await store.close();
      lock.release();
    },
  };
}

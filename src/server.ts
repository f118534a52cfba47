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
import { createEmbedders } from './embedders/create-embedders';
import { type Learning, LearningSupervisor } from './learning/learning-supervisor';
import { useEmbeddingModel } from './learning/queue';
import { LearningRunner } from './learning/runner';
import { urlReader } from './learning/url-reader';
import { createLogger, type Logger } from './log';
import { FactExtractor } from './learning/fact-extractor';
import { ModelClient } from './language-model/model-client';
import type { Services } from './operations/operation';
import type { ClientMetadataOptions } from './oauth/client-metadata';
import { QueryEmbedder } from './search/query-embedder';
import { SearchActivity } from './search/search-activity';
import { createServices, type OpenServices } from './services';
import { type Site, siteFor } from './site';
import { lockDataDir, openDatabase } from './storage/sqlite/open';
import { IMPORTS_DIR } from './data-dir';
import { openSqliteStore } from './storage/sqlite/sqlite-store';
import type { Store, VectorTier } from './storage/store';
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
}

export async function startServer(config: Config, options: ServerOptions = {}): Promise<RunningServer> {
  const clock = options.clock ?? systemClock;
  const log = options.log ?? createLogger(config.logLevel);
  const lock = lockDataDir(config.dataDir);
  let store: Store;
  try {
    store = openSqliteStore(openDatabase(config.dataDir, clock.now()));
  } catch (err) {
    lock.release();
    throw err;
  }
  const embedders = await createEmbedders(config, { strong: (identity) => new QueryEmbedder(identity) });
  if (!embedders.fast) log.info('no embedder configured: search is keyword-only');
  for (const tier of ['fast', 'strong'] as const) {
    const embedder = embedders[tier];
    // A different model than the stored vectors came from: they are dropped and made again. Passages
    // a server learned without an embedder are embedded once one is back.
    if (await useEmbeddingModel(store, tier, embedder && { id: embedder.id, dimensions: embedder.dimensions }, clock.now())) {
      log.info('passages will be embedded in the background', { tier, model: embedder?.id });
    }
  }
  const requeued = await store.jobs.requeueRunning(clock.now());
  if (requeued) log.info('learning resumes jobs a stopped server left running', { jobs: requeued });
  // No request runs yet: a write left pending by a stopped server has an unknown outcome.
  await store.idempotency.deleteExpired(clock.now());
  const interrupted = await store.idempotency.interruptPending();
  if (interrupted) log.warn('writes a stopped server left running are marked interrupted', { idempotency_keys: interrupted });
  // The learning thread boots (its imports, its store, the fast model: a few hundred ms) while this
  // thread opens the search index. The thread's reports of passages indexed wait for it (`onIndexed`);
  // vectors stored before the indexes are opened are read by them.
  const opened = Promise.withResolvers<OpenServices>();
  opened.promise.catch(() => {}); // a failure to open is the start's, below
  const onIndexed = async (tier: VectorTier, ids: number[]) => (await opened.promise).indexes.indexPassages(tier, ids);
  const strong = embedders.strong && { id: embedders.strong.id, dimensions: embedders.strong.dimensions, similarityFloor: embedders.strong.similarityFloor ?? 0 };
  // Refinement runs the query thread's session: the process holds the strong model once.
  const queryModel = embedders.strong instanceof QueryEmbedder ? embedders.strong : null;
  const strongModel = queryModel && (() => queryModel.shared());
  // Searches in flight, which refinement's model runs keep out of the way of.
  const searches = new SearchActivity();
  const thread = options.manualLearning ? null : LearningSupervisor.start(config, onIndexed, log, { strongIdentity: strong, strongModel, searches: searches.buffer });
  let learning: Learning | null = null;
  let services: OpenServices;
  try {
    services = await createServices(store, config, { clock, log, embedders, activity: searches, notifyQueued: () => learning?.notify() });
    opened.resolve(services);
  } catch (err) {
    opened.reject(err);
    await thread?.then((t) => t.stop(), () => {});
    throw err;
  }
  if (thread) {
    learning = await thread;
  } else {
    const extractor = config.model ? new FactExtractor(new ModelClient(config.model), log) : null;
    learning = new LearningRunner({
      store, clock, log, embedder: embedders.fast, strong: embedders.strong, readUrl: urlReader(config), onIndexed, extractor,
    });
  }
  const running = learning;
  services.accessLog.startPruning(config.accessLogDays);
  // The site is known once the server listens (the port may be 0); requests come only after that.
  const site: Site = { baseUrl: '', origins: new Set(), ownOrigins: new Set(), trustedProxies: new TrustedProxies(config.trustedProxies) };
  const imports = new ImportRuns(join(config.dataDir, IMPORTS_DIR), clock);
  const app = createApp(services, site, {
    consentTtlDays: config.consentTtlDays,
    clientMetadata: { allowPrivate: config.fetchAllowPrivate, ...options.clientMetadata },
  }, imports);
  // Bun's own body limit would answer a bare 413 before the app sees the request; the app's limit
  // (app.ts) refuses every oversized body itself, in the envelope, without reading it past the limit.
  // Bun answers headers over its parser's limit with a bare 431 that no hook sees; node:http's
  // setting is the one Bun.serve reads. Raised so the app's smaller limit answers in the envelope.
  (nodeHttp as { maxHeaderSize: number }).maxHeaderSize = PARSER_HEADER_BYTES;
  const http = Bun.serve({ hostname: config.host, port: config.port, fetch: app.fetch, maxRequestBodySize: Number.MAX_SAFE_INTEGER });
  Object.assign(site, siteFor(config, http.port!));
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${http.port}`;
  log.info('engram listening', { url, base_url: site.baseUrl, data_dir: config.dataDir });
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

/**
 * The learning thread's code (learning-supervisor.ts starts it): its own connection to the store
 * (the SQLite file, or the shared PostgreSQL store), its own embedder, and the runner loop, so the
 * HTTP thread never waits on learning. It tells the main thread which passages got vectors, so
 * search can index them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FactExtractor } from './fact-extractor';
import { exchangeBackfill } from './exchange-backfill';
import { feedPruning } from './feed-pruning';
import { ModelClient } from '../language-model/model-client';
import { systemClock } from '../clock';
import { createLogger } from '../log';
import { SearchActivity } from '../search/search-activity';
import { openStore } from '../storage/open-store';
import { KeywordIndexRebuild } from '../storage/sqlite/fts-rebuild';
import { openDatabase } from '../storage/sqlite/open';
import { openSqliteStore } from '../storage/sqlite/sqlite-store';
import type { Store } from '../storage/store';
import { useVectorExtensionFile } from '../storage/sqlite/vectors';
import { createEmbedders, loadStrongWhenUsed } from '../embedders/create-embedders';
import type { SharedOnnxEmbedder } from '../embedders/onnx-embedder';
import { useEmbeddedOnnxRuntime } from '../embedders/onnx-library';
import { refineLanes } from './refine-lane';
import { LearningRunner } from './runner';
import { LEARNING_NICE, lowerThreadPriority } from './thread-priority';
import { urlReader } from './url-reader';
import type { FromWorker, ToWorker, WorkerData } from './thread-messages';

const port = parentPort!;
const { config, vectorExtension, onnxRuntime, restarted, strongIdentity, sharedStrong, searches } =
  workerData as WorkerData;
useVectorExtensionFile(vectorExtension);
useEmbeddedOnnxRuntime(onnxRuntime);
const log = createLogger(config.logLevel);
/**
 * The SQLite file, with its keyword index's rebuild as upkeep between rounds; or the shared
 * PostgreSQL store, whose keyword index is the server's own, with its vector feed's pruning. Then,
 * on either, the exchange's backfill.
 */
async function open(): Promise<{ store: Store; upkeep: () => Promise<boolean> }> {
  if (config.databaseUrl) {
    const { store, feed } = await openStore(config, systemClock.now(), { connections: 4 });
    return { store, upkeep: inTurn(feedPruning(feed!, log), exchangeBackfill(store, log)) };
  }
  const db = openDatabase(config.dataDir, systemClock.now());
  const sqlite = openSqliteStore(db);
  const keywordIndex = new KeywordIndexRebuild(db, log);
  return {
    store: sqlite,
    upkeep: inTurn(() => sqlite.withConnection(() => keywordIndex.step()), exchangeBackfill(sqlite, log)),
  };
}
/** Upkeep steps one after another: each runs once those before it have no more work. */
function inTurn(...steps: (() => Promise<boolean>)[]): () => Promise<boolean> {
  return async () => {
    for (const step of steps) if (await step()) return true;
    return false;
  };
}
const { store, upkeep } = await open();
// Only where this process owns the store: on a shared one, other learners' jobs are running too, and
// the jobs of the worker that died are taken again when their leases end.
if (restarted && !config.databaseUrl) {
  // The worker before this one died mid-batch; a store that refuses this write fails the start,
  // and the supervisor tries again later.
  const jobs = await store.jobs.requeueRunning(systemClock.now());
  if (jobs) log.info('learning resumes the jobs of the worker that died', { jobs });
}
const send = (m: FromWorker) => port.postMessage(m);
// The query thread's strong model, once the HTTP thread sends it: refinement waits for it.
const strongModel = Promise.withResolvers<SharedOnnxEmbedder>();
strongModel.promise.catch(() => {}); // a failure is seen by the refinement that awaits it
const activity = new SearchActivity(searches);
const embedders = await createEmbedders(config, {
  identity: strongIdentity ?? undefined,
  strong: loadStrongWhenUsed({
    shared: sharedStrong ? () => strongModel.promise : undefined,
    beforeRun: () => activity.quiet(),
    lanes: (shared) => refineLanes(shared, config.refineThreads),
  }),
});
const runner = new LearningRunner({
  store,
  clock: systemClock,
  log,
  embedder: embedders.fast,
  strong: embedders.strong,
  readUrl: urlReader(config),
  onIndexed: (tier, passageIds) => send({ type: 'indexed', tier, passageIds }),
  extractor: config.model ? new FactExtractor(new ModelClient(config.model), embedders.fast) : null,
  upkeep,
  leaseMs: config.jobLeaseSeconds * 1000,
  searched: () => activity.recentContainers(),
});
runner.start();

port.on('message', async (message: ToWorker) => {
  if (message.type === 'wake') runner.notify();
  if (message.type === 'strong-model') {
    if ('shared' in message) strongModel.resolve(message.shared);
    else strongModel.reject(new Error(`the strong model is not loaded: ${message.error}`));
  }
  if (message.type === 'drain') {
    // Answered either way: a rejection here would be thrown on the thread and end it.
    send(
      await runner.drain().then(
        (jobs) => ({ type: 'drained', id: message.id, jobs }),
        (err) => ({ type: 'drained', id: message.id, error: String(err) }),
      ),
    );
  }
  if (message.type === 'stop') {
    await runner.stop();
    // Waits for a model still loading: ONNX Runtime aborts the process when the thread it loads a
    // session for is terminated under it.
    await embedders.strong?.close?.();
    await store.close();
    send({ type: 'stopped' });
  }
});
send({ type: 'ready' });
// Learning is background work: on Linux this thread yields the cores to the threads answering
// requests. Only once ready: the server waits for this thread to start before it answers.
lowerThreadPriority(LEARNING_NICE);

/**
 * The learning worker thread's entry: its own connection to the store, its own embedder, and the
 * runner loop, so the HTTP thread never waits on learning. It tells the main thread which
 * passages got vectors, so search can index them.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { FactExtractor } from '../agent/fact-extractor';
import { ModelClient } from '../agent/model-client';
import { systemClock } from '../clock';
import type { Config } from '../config';
import { createLogger } from '../log';
import { KeywordIndexRebuild } from '../storage/sqlite/fts-rebuild';
import { openDatabase } from '../storage/sqlite/open';
import { SqliteStore } from '../storage/sqlite/sqlite-store';
import { useVectorExtensionFile } from '../storage/sqlite/vectors';
import { createEmbedders } from './create-embedder';
import { LearningRunner } from './runner';
import { urlReader } from './url-reader';
import type { ToWorker, FromWorker } from './worker-messages';

const port = parentPort!;
const { config, vectorExtension } = workerData as { config: Config; vectorExtension: string | null };
useVectorExtensionFile(vectorExtension);
const log = createLogger(config.logLevel);
const db = openDatabase(config.dataDir, systemClock.now());
const store = new SqliteStore(db);
const keywordIndex = new KeywordIndexRebuild(db, log);
const send = (m: FromWorker) => port.postMessage(m);
const embedders = await createEmbedders(config);
const runner = new LearningRunner({
  store, clock: systemClock, log, embedder: embedders.fast, strong: embedders.strong, readUrl: urlReader(config),
  onIndexed: (tier, passageIds) => send({ type: 'indexed', tier, passageIds }),
  extractor: config.model ? new FactExtractor(new ModelClient(config.model), log) : null,
  upkeep: () => keywordIndex.step(),
});
runner.start();

port.on('message', async (message: ToWorker) => {
  if (message.type === 'wake') runner.notify();
  if (message.type === 'drain') send({ type: 'drained', id: message.id, jobs: await runner.drain() });
  if (message.type === 'stop') {
    await runner.stop();
    store.close();
    send({ type: 'stopped' });
  }
});
send({ type: 'ready' });

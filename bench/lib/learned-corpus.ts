/**
 * A benchmark's documents learned the way the server learns them: a scratch store in a temporary
 * directory, each document added as add_document adds it (one queued learning job), then split,
 * embedded and indexed by the server's own LearningRunner and refined by its Refiner.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FactExtractor } from '../../src/learning/fact-extractor';
import { ManualClock } from '../../src/clock';
import { createLogger } from '../../src/log';
import { Refiner } from '../../src/learning/refiner';
import { insertDocument, useEmbeddingModels } from '../../src/learning/queue';
import { LearningRunner } from '../../src/learning/runner';
import type { EmbedderTiers } from '../../src/embedders/create-embedders';
import { openDatabase } from '../../src/storage/sqlite/open';
import { openSqliteStore } from '../../src/storage/sqlite/sqlite-store';
import { storedVectorPages } from '../../src/storage/passages';
import type { Store, VectorTier } from '../../src/storage/store';
import type { VectorIndex } from '../../src/search/vector-index';
import { scratchIndex } from '../../test/helpers/scratch';
import { queuedDocument } from './queued-document';

export const ACCOUNT = 'acc_bench';
export const CONTAINER = {
  id: 'ctr_bench',
  accountId: ACCOUNT,
  name: 'bench',
  description: '',
  createdAt: 0,
  updatedAt: 0,
  learnsIntoProfile: true,
};

export interface LearnedCorpus {
  store: Store;
  /** The store's data directory. */
  dir: string;
  /** A passage's document key, for every passage learned; a learned fact's is its source document's. */
  keyOf(passageId: number): string | undefined;
  /** Facts the extractor saved into the container (searchable), and into the profile (not searched here). */
  facts: { container: number; profile: number };
  /** The passage at a position of a document (search results name passages that way). */
  passageAt(documentId: string, position: number): number | undefined;
  /** A learned fact's passage. */
  factPassage(memoryId: string): number | undefined;
  close(): Promise<void>;
}

/**
 * Learns the documents (key → text) with the given embedders; the strong tier refines every passage.
 * With an extractor, the learning turn also picks facts out of each document, as a server with a
 * model does.
 */
export async function learnCorpus(
  documents: { key: string; text: string }[],
  embedders: EmbedderTiers,
  extractor: FactExtractor | null = null,
): Promise<LearnedCorpus> {
  const dir = mkdtempSync(join(tmpdir(), 'engram-quality-'));
  const clock = new ManualClock();
  const log = createLogger('warn');
  const db = openDatabase(dir, clock.now());
  db.run('PRAGMA synchronous = OFF'); // a benchmark's scratch store: durability is not measured here
  const store = openSqliteStore(db);
  await store.accounts.insert({ id: ACCOUNT, email: 'bench@example.org', passwordHash: '-', createdAt: 0 });
  await store.containers.insert(CONTAINER);
  await useEmbeddingModels(store, embedders, clock.now());
  const keyOfDocument = new Map<string, string>();
  await store.transaction(async (tx) => {
    for (const [i, { key, text }] of documents.entries()) {
      const id = `doc_${i}`;
      keyOfDocument.set(id, key);
      // Added one by one, as an app adds messages: the store's order of them is the set's.
      clock.advance(1);
      await insertDocument(
        tx,
        queuedDocument({ id, accountId: ACCOUNT, containerId: CONTAINER.id, content: text }, clock.now()),
      );
    }
  });

  const indexed = new Set<number>();
  const onIndexed = (_: VectorTier, ids: number[]) => {
    for (const id of ids) indexed.add(id);
  };
  const runner = new LearningRunner({
    store,
    clock,
    log,
    embedder: embedders.fast,
    strong: embedders.strong,
    onIndexed,
    extractor,
    readUrl: () => Promise.reject(new Error('the benchmark has no URL documents')),
  });
  await runner.drain();
  // drain() works the queue only; the server's loop refines while the queue is empty, and the
  // benchmark measures a store refined to the end.
  if (embedders.strong) {
    const refiner = new Refiner(store, embedders.strong, (ids) => onIndexed('strong', ids));
    while ((await refiner.step()) > 0);
  }

  const keyOf = new Map<number, string>();
  const passageAt = new Map<string, number>();
  const ids = [...indexed];
  for (let i = 0; i < ids.length; i += 500) {
    for (const hit of await store.passages.getHits(ACCOUNT, ids.slice(i, i + 500))) {
      const documentId = hit.documentId ?? hit.source?.documentId;
      if (documentId) keyOf.set(hit.passageId, keyOfDocument.get(documentId)!);
      passageAt.set(hit.memoryId ?? `${hit.documentId}#${hit.position}`, hit.passageId);
    }
  }
  if (new Set(keyOf.values()).size !== documents.length)
    throw new Error(`only ${new Set(keyOf.values()).size} of ${documents.length} documents were learned`);
  const facts = {
    container: (await store.facts.listRecent(ACCOUNT, [CONTAINER.id], 1_000_000)).length,
    profile: (await store.facts.listStatic(ACCOUNT)).length,
  };
  return {
    store,
    dir,
    keyOf: (id) => keyOf.get(id),
    facts,
    passageAt: (documentId, position) => passageAt.get(`${documentId}#${position}`),
    factPassage: (memoryId) => passageAt.get(memoryId),
    async close() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A tier's vector index over every stored vector of the tier, as SearchEngine.open builds it. */
export async function tierIndex(store: Store, tier: VectorTier, dimensions: number): Promise<VectorIndex> {
  const index = scratchIndex(dimensions);
  index.reserve(await store.vectors.countUnits(tier));
  for await (const page of storedVectorPages(store.vectors, tier, 2_000)) {
    for (const p of page) index.add(p.passageId, p.containerId, p.vectors);
  }
  return index;
}

/**
 * The learning queue's writes that span aggregates, each in one place: a job is queued in the same
 * transaction as the document, the fact or the model change it is for, and a job's end commits
 * together with what it learned. Repositories write one aggregate each; these compose them. Each
 * takes the store or a caller's open `tx`, and its writes are one transaction either way (a
 * savepoint inside the caller's).
 */
import type {
  DocumentRow,
  EmbeddingModel,
  Fact,
  FactHistoryEntry,
  FactSource,
  LearningJob,
  PassageInput,
  Transaction,
  VectorTier,
} from '../storage/store';
import type { EmbedderTiers } from '../embedders/create-embedders';
import { storeLearned } from './exchange';

/**
 * What learning does with a newly inserted document. `learn` (every document an app adds): read
 * it, index it and extract its facts. `rebuild` (a document that was learned on another server
 * and arrives by import, its facts with it): index it again, extract nothing, keep its learned
 * and updated times; `passages` are the text a URL document was read as there, indexed as they
 * are rather than fetched again. `none`: queue nothing (a document that failed there stays failed).
 */
export type DocumentLearning =
  | { mode: 'learn' }
  | { mode: 'rebuild'; passages?: PassageInput[] | null }
  | { mode: 'none' };

/**
 * Inserts a document and queues its learning job (`learn` unless told), or returns the document
 * its container already holds under the same `customId` and queues nothing. The job is ready at
 * the document's creation; an import queues its (old) documents at `importedAt`, as bulk work,
 * behind whatever is added by hand meanwhile.
 */
export function insertDocument(
  db: Transaction,
  doc: DocumentRow,
  learning: DocumentLearning = { mode: 'learn' },
  importedAt?: number,
): Promise<{ inserted: boolean; document: DocumentRow }> {
  return db.transaction(async (tx) => {
    const added = await tx.documents.insert(doc);
    if (!added.inserted) return added;
    // What the URL was read as on the other server: the rebuild indexes these, not a new fetch.
    if (learning.mode === 'rebuild' && learning.passages?.length)
      await tx.passages.replaceForDocument(doc, learning.passages);
    if (learning.mode !== 'none') {
      await tx.jobs.enqueue(
        {
          accountId: doc.accountId,
          kind: 'learn_document',
          documentId: doc.id,
          rebuild: learning.mode === 'rebuild',
          bulk: importedAt !== undefined,
        },
        importedAt ?? doc.createdAt,
      );
    }
    return added;
  });
}

/**
 * Inserts a fact (see `FactRepository.insert`); one in a container is searchable by keyword at
 * once, and its embedding is queued.
 */
export function insertFact(db: Transaction, fact: Fact, history?: FactHistoryEntry[]): Promise<void> {
  return db.transaction(async (tx) => {
    await tx.facts.insert(fact, history);
    if (fact.containerId)
      await tx.jobs.enqueue({ accountId: fact.accountId, kind: 'embed_memory', memoryId: fact.id }, fact.createdAt);
  });
}

/**
 * Rewrites a fact (see `FactRepository.updateContent`); one in a container is embedded again
 * under its new wording. False when the account holds no such fact.
 */
export function rewordFact(
  db: Transaction,
  accountId: string,
  id: string,
  content: string,
  at: number,
  source?: FactSource,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const fact = await tx.facts.get(accountId, id);
    if (!fact || !(await tx.facts.updateContent(accountId, id, content, at, source))) return false;
    if (fact.containerId) await tx.jobs.enqueue({ accountId, kind: 'embed_memory', memoryId: id }, at);
    return true;
  });
}

/**
 * A learn_document job's end: the document's passages (and their fast vectors, when an embedder
 * runs) stored, the keyword context of a chat turn and of the turns beside it written
 * (exchange.ts), the document learned and the job done, together; with `extractFacts` (a language
 * model learns facts) and unless the document is rebuilt, its extract_facts job queued in the same
 * commit, so that it is queued exactly once. A document deleted meanwhile only ends its job.
 * Returns the new passages' ids.
 */
export function completeDocument(
  db: Transaction,
  job: LearningJob,
  passages: PassageInput[],
  vectors: Float32Array[][] | null,
  now: number,
  extractFacts = false,
): Promise<number[]> {
  return db.transaction(async (tx) => {
    const doc = job.accountId && job.documentId ? await tx.documents.get(job.accountId, job.documentId) : null;
    let ids: number[] = [];
    if (doc) {
      ids = await storeLearned(tx, doc, passages);
      if (vectors)
        await tx.vectors.put(
          'fast',
          ids.map((passageId, i) => ({ passageId, vectors: vectors[i]! })),
        );
      // A rebuilt document (an import) was learned before, elsewhere: it keeps when that was.
      await tx.documents.markLearned(
        doc.accountId,
        doc.id,
        job.rebuild
          ? { learnedAt: doc.learnedAt ?? now, updatedAt: doc.updatedAt }
          : { learnedAt: now, updatedAt: now },
      );
      // Only by the claim that still holds the job: a learner whose lease ended, and whose job
      // another learner finished meanwhile, queues the facts no second time.
      if (extractFacts && !job.rebuild && (await tx.jobs.renew([job], now)).length)
        await tx.jobs.enqueue(
          { accountId: doc.accountId, kind: 'extract_facts', documentId: doc.id, bulk: job.bulk },
          now,
        );
    }
    await tx.jobs.complete(job, now);
    return ids;
  });
}

/**
 * Records a job's failure: it retries after `retryAt`, or with null fails for good, and a
 * learn_document job's document with it (a document whose facts could not be extracted stays
 * learned: it is searchable).
 */
export function failJob(
  db: Transaction,
  job: LearningJob,
  error: string,
  retryAt: number | null,
  now: number,
): Promise<void> {
  return db.transaction(async (tx) => {
    await tx.jobs.fail(job, error, retryAt, now);
    if (retryAt === null && job.kind === 'learn_document' && job.accountId && job.documentId)
      await tx.documents.markFailed(job.accountId, job.documentId, error, now);
  });
}

/**
 * Records the model a tier uses (see `VectorRepository.setModel`); when stored passages lack the
 * fast tier's vectors, a re-embedding job is queued with it. Returns whether passages will be
 * embedded in the background.
 */
function useEmbeddingModel(
  db: Transaction,
  tier: VectorTier,
  model: EmbeddingModel | null,
  now: number,
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const missing = await tx.vectors.setModel(tier, model);
    if (missing && tier === 'fast' && (await tx.passages.count()) > 0)
      await tx.jobs.enqueue({ accountId: null, kind: 'reembed' }, now);
    return missing;
  });
}

/**
 * Records the model of each tier a process embeds with (`useEmbeddingModel`), as a server and a
 * learner do at start. Returns the tiers whose passages will be embedded in the background.
 */
export async function useEmbeddingModels(
  db: Transaction,
  embedders: EmbedderTiers,
  now: number,
): Promise<VectorTier[]> {
  const background: VectorTier[] = [];
  for (const tier of ['fast', 'strong'] as const) {
    const embedder = embedders[tier];
    if (await useEmbeddingModel(db, tier, embedder && { id: embedder.id, dimensions: embedder.dimensions }, now))
      background.push(tier);
  }
  return background;
}

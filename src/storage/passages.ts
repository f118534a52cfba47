/**
 * Passages and their vectors: the search index. A document is learned as passages; a fact in a
 * container is a passage of its own. Each passage has vectors of each embedding tier.
 */
import type { FactSource } from './facts';

export interface PassageInput {
  position: number;
  title: string | null;
  content: string;
}

/**
 * How keyword search weighs a word by where it stands in a passage: its own text, its title, and
 * its context (a chat turn's neighbouring turns, src/learning/exchange.ts). SQLite's BM25 takes
 * them as column weights, PostgreSQL's ts_rank as the weights of the tsvector's labels.
 */
export const KEYWORD_WEIGHTS = { content: 1, title: 0.5, context: 0.25 } as const;

/**
 * A document beside another in its container, in the order added, with its passage when it was
 * learned as exactly one (what may be a chat turn: src/learning/exchange.ts).
 */
export interface TurnCandidate {
  documentId: string;
  /** When the document was added (ms). */
  addedAt: number;
  passage: { id: number; content: string; context: string | null } | null;
}

/** Where a document stands in the order the exchange's backfill goes: container by container, each in the order added. */
export interface TurnMark {
  containerId: string;
  addedAt: number;
  /** The order stored, among documents added at the same time. */
  seq: number;
}

/**
 * The next documents of one container after a mark (`turnsAfter`), with the one before them when
 * there is one (`window[0]`, then `first` is 1) and the one after them when the container has more
 * (then `last` is the one before it). The backfill relinks those from `first` to `last`.
 */
export interface TurnRun {
  window: TurnCandidate[];
  first: number;
  last: number;
  /** Where the last relinked document stands: the next run starts after it. */
  mark: TurnMark;
}

/** A passage keyword search found, before its text is read (only the fused best few are). */
export interface KeywordHit {
  passageId: number;
  /** BM25, higher is better. */
  score: number;
}

export interface PassageHit {
  passageId: number;
  containerId: string;
  documentId: string | null;
  memoryId: string | null;
  customId: string | null;
  position: number;
  title: string | null;
  content: string;
  /** A learned fact's passage: the document and passage it was extracted from, while that document stands. */
  source: (FactSource & { customId: string | null }) | null;
  /** Higher is better. */
  score: number;
}

/**
 * Which model made a vector: `fast`, the built-in static model that makes a document searchable at
 * once, or `strong`, the transformer that refines it in the background.
 */
export type VectorTier = 'fast' | 'strong';

/** A passage's vectors of one tier: unit 0 is the whole passage, then its sentence groups. */
export interface PassageVectors {
  passageId: number;
  vectors: Float32Array[];
}

/** A passage's stored vectors of one tier, int8 as stored (cosine is scale-free). */
export interface StoredVectors {
  passageId: number;
  containerId: string;
  vectors: Int8Array[];
}

export interface PassageText {
  id: number;
  title: string | null;
  content: string;
}

export interface EmbeddingModel {
  id: string;
  dimensions: number;
}

/** The document a passage belongs to, as passages are stored under it. */
export interface PassageOwner {
  id: string;
  accountId: string;
  containerId: string;
}

export interface PassageRepository {
  /**
   * BM25 full-text search over the passages of `containerIds` together, best first: the `limit`
   * best of them all, each scored as a search of its container alone would score it, in one query
   * for every container of a search. `query` is plain text, never FTS syntax.
   */
  search(accountId: string, containerIds: string[], query: string, limit: number): Promise<KeywordHit[]>;
  /** A document's passages, in order. */
  list(accountId: string, documentId: string): Promise<PassageInput[]>;
  /**
   * Stores a document's passages, replacing those it had (an interrupted learning's are never
   * doubled), in one write of all of them, each with its context when given (a chat turn's,
   * src/learning/exchange.ts); returns their new ids, in order.
   */
  replaceForDocument(doc: PassageOwner, passages: (PassageInput & { context?: string | null })[]): Promise<number[]>;
  /**
   * A document and up to `reach` documents each side of it among its container's, in the order
   * added (added time, then the order stored), oldest first; null when the account holds no such
   * document. On a shared store it holds the container's turns until the transaction ends: the
   * relinks of two learners, or of a learner and the backfill, take turns, each reading what the
   * other wrote.
   */
  turnsAround(accountId: string, documentId: string, reach: number): Promise<TurnCandidate[] | null>;
  /**
   * Up to `limit` documents after `mark` (from the first container's first when null), in one
   * container, as `TurnRun` says; when the mark's container has none left, those of the next
   * container; null when none is left. On a shared store the container's turns are held until the
   * transaction ends, as `turnsAround` holds them.
   */
  turnsAfter(mark: TurnMark | null, limit: number): Promise<TurnRun | null>;
  /** Writes passages' context (the keyword index's third text), null for none. */
  setContexts(contexts: { passageId: number; context: string | null }[]): Promise<void>;
  /** How many passages the server holds, every account together (a progress figure, no account data). */
  count(): Promise<number>;
  /** The memory's passage, for embedding a fact. */
  getForFact(memoryId: string): Promise<PassageText | null>;
  /** Passages by id within one account, with what a search hit cites. */
  getHits(accountId: string, passageIds: number[]): Promise<PassageHit[]>;
  /** Passages after `afterPassageId` with no vector of the tier yet, oldest first: re-embedding's work list. */
  listWithoutVectors(tier: VectorTier, afterPassageId: number, limit: number): Promise<PassageText[]>;
  /**
   * The ids of up to `limit` passages with ids in (`after`, `upTo`] and no vector of the tier yet,
   * every account's, in the order refinement takes them, the order a person will search in: the
   * passages of `containersFirst` (the containers searched lately, most recent first) before the
   * rest; what the person added (documents and facts no import brought) before what an import
   * brought; then the newest document or fact first, and a document's passages in order. The range
   * bounds the pass over the store (refiner.ts plans a window of ids at a time).
   */
  listForRefinement(
    tier: VectorTier,
    containersFirst: string[],
    range: { after: number; upTo: number },
    limit: number,
  ): Promise<number[]>;
  /** Passages' texts by id, every account's (refinement's); a passage deleted meanwhile is left out. */
  getTexts(passageIds: number[]): Promise<PassageText[]>;
  /** The highest passage id ever given (ids are never reused), 0 before the first passage. */
  lastId(): Promise<number>;
}

/** Passages' vectors of each tier, and the model each tier's come from. */
export interface VectorRepository {
  /**
   * Stores (replacing) passages' vectors of one tier, ignoring any passage deleted meanwhile;
   * returns the ids of the passages whose vectors were stored.
   */
  put(tier: VectorTier, vectors: PassageVectors[]): Promise<number[]>;
  /** The model a tier's stored vectors come from, or null when none has been used. */
  getModel(tier: VectorTier): Promise<EmbeddingModel | null>;
  /**
   * Records the model a tier uses, or that it has none (null). A different model drops the tier's
   * stored vectors. Passages learned while the fast tier had no model get none of its vectors,
   * which the next call with its model reports. Returns whether stored passages lack the tier's
   * vectors because of either: the fast tier's are made again by a re-embedding job (queued by
   * src/learning/queue.ts), the strong tier's by refinement, which finds them by itself.
   */
  setModel(tier: VectorTier, model: EmbeddingModel | null): Promise<boolean>;
  /** A tier's stored vectors by passage, for building the in-memory index; `after` pages by passage id. */
  list(tier: VectorTier, afterPassageId: number, limit: number): Promise<StoredVectors[]>;
  get(tier: VectorTier, passageIds: number[]): Promise<StoredVectors[]>;
  /** How many unit vectors a tier holds (of passages in the id range, when given), for sizing its index before building it. */
  countUnits(tier: VectorTier, afterPassageId?: number, upToPassageId?: number): Promise<number>;
}

/** Every stored vector of a tier, `pageSize` passages at a time in passage order (`VectorRepository.list`'s paging, once). */
export async function* storedVectorPages(
  vectors: Pick<VectorRepository, 'list'>,
  tier: VectorTier,
  pageSize: number,
): AsyncGenerator<StoredVectors[]> {
  for (let page = await vectors.list(tier, 0, pageSize); page.length; ) {
    yield page;
    page = await vectors.list(tier, page.at(-1)!.passageId, pageSize);
  }
}

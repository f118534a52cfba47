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

export interface PassageRepository {
  /** BM25 full-text search over one container's passages, best first; `query` is plain text, never FTS syntax. */
  searchPassages(accountId: string, containerId: string, query: string, limit: number): KeywordHit[];
  listPassages(accountId: string, documentId: string): PassageInput[];
  /** How many passages the server holds, every account together (a progress figure, no account data). */
  countPassages(): number;
  /** The memory's passage, for embedding a fact. */
  getFactPassage(memoryId: string): PassageText | null;
  /** Passages by id within one account, with what a search hit cites. */
  getPassageHits(accountId: string, passageIds: number[]): PassageHit[];

  /**
   * Stores (replacing) passages' vectors of one tier, ignoring any passage deleted meanwhile;
   * returns the ids of the passages whose vectors were stored.
   */
  storeVectors(tier: VectorTier, vectors: PassageVectors[]): number[];
  /** The model a tier's stored vectors come from, or null when none has been used. */
  getEmbeddingModel(tier: VectorTier): EmbeddingModel | null;
  /**
   * Records the model a tier uses, or that it has none (null). A different model drops the tier's
   * stored vectors; for the fast tier it also queues a re-embedding job (the strong tier refines
   * on its own). Passages learned while the fast tier had no model get none of its vectors: the
   * next call with its model queues a re-embedding for them (the job embeds only passages without
   * vectors). Returns whether passages will be embedded in the background.
   */
  setEmbeddingModel(tier: VectorTier, model: EmbeddingModel | null, now: number): boolean;
  /** A tier's stored vectors by passage, for building the in-memory index; `after` pages by passage id. */
  listVectors(tier: VectorTier, afterPassageId: number, limit: number): StoredVectors[];
  getVectors(tier: VectorTier, passageIds: number[]): StoredVectors[];
  /** How many unit vectors a tier holds (of passages in the id range, when given), for sizing its index before building it. */
  countVectorUnits(tier: VectorTier, afterPassageId?: number, upToPassageId?: number): number;
  /** Passages after `afterPassageId` with no vector of the tier yet, oldest first: re-embedding's and refinement's work list. */
  listPassagesWithoutVectors(tier: VectorTier, afterPassageId: number, limit: number): PassageText[];
  /** The highest passage id ever given (ids are never reused), 0 before the first passage. */
  lastPassageId(): number;
}

/**
 * The Store: everything operations know about storage. Every method that reads or writes a
 * person's data takes their account id and never reaches outside it.
 */

export type Level = 'read' | 'suggest' | 'manage';
export type DocumentStatus = 'queued' | 'learned' | 'failed';
export type UsageOutcome = 'ok' | 'refused' | 'error';

export interface Account {
  id: string;
  email: string;
  passwordHash: string;
  createdAt: number;
}

export interface Session {
  id: string;
  accountId: string;
  secretHash: string;
  createdAt: number;
  expiresAt: number;
}

export interface Container {
  id: string;
  accountId: string;
  name: string;
  description: string;
  createdAt: number;
  updatedAt: number;
}

export interface DocumentRow {
  id: string;
  accountId: string;
  containerId: string;
  title: string | null;
  content: string | null;
  url: string | null;
  customId: string | null;
  metadata: Record<string, unknown> | null;
  status: DocumentStatus;
  error: string | null;
  createdAt: number;
  updatedAt: number;
  learnedAt: number | null;
}

export interface Memory {
  id: string;
  accountId: string;
  containerId: string | null;
  content: string;
  title: string | null;
  static: boolean;
  createdAt: number;
  updatedAt: number;
  /** A learned fact: the document it was extracted from (null once that document is deleted and the fact kept: see `reviewedAt`). */
  sourceDocumentId?: string | null;
  /** A learned fact: the position of the passage it came from. */
  sourcePosition?: number | null;
  /** When the owner last edited or confirmed the fact; null when never (see `Store.forget`). */
  reviewedAt?: number | null;
}

export type CredentialKind = 'developer_key' | 'consent_token';

export interface Credential {
  id: string;
  accountId: string;
  /**
   * A developer key, or a consent token an app received when the owner approved it (always level
   * read). A Caller made from an exposure carries its kind here (rows of `exposures`, never stored
   * as credentials), so reach works for it unchanged.
   */
  kind: CredentialKind | ExposureKind;
  name: string;
  secretHash: string;
  hint: string;
  level: Level;
  allContainers: boolean;
  profile: boolean;
  expiresInDays: number | null;
  expiresAt: number | null;
  revokedAt: number | null;
  replaces: string | null;
  createdAt: number;
  lastUsedAt: number | null;
  /** The ticked containers; meaningful when `allContainers` is false. */
  containerIds: string[];
  /** Consent tokens only: the app (OAuth client_id) that holds it. */
  clientId?: string | null;
  /** Consent tokens only: the resource (RFC 8707) it was issued for; any other refuses it. */
  audience?: string | null;
}

/** An app known to the authorization server, registered (RFC 7591) or described by its metadata document. */
export interface OAuthClient {
  clientId: string;
  kind: 'registered' | 'metadata_document';
  name: string;
  redirectUris: string[];
  /** What was registered and answered, or the fetched metadata document. */
  metadata: Record<string, unknown>;
  createdAt: number;
  lastUsedAt: number | null;
  /** A never-approved registration is forgotten after this; null once an owner approved the app. */
  expiresAt: number | null;
  /** Metadata documents: when fetched, and until when used without fetching again. */
  fetchedAt: number | null;
  freshUntil: number | null;
}

/** An authorization code: what the owner approved, waiting for the app to exchange it. */
export interface AuthorizationCode {
  id: string;
  secretHash: string;
  accountId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scope: string;
  containerIds: string[];
  profile: boolean;
  createdAt: number;
  expiresAt: number;
  usedAt: number | null;
  tokenId: string | null;
}

/** Where a learned fact came from. */
export interface FactSource {
  documentId: string;
  position: number;
}

/** What an exposure holds: ask_agent (an agent share) or workflow_invoke (a workflow). */
export type ExposureKind = 'agent_share' | 'workflow';

/** An agent share or a workflow the owner exposed: a token over chosen containers, never a key. */
export interface Exposure {
  id: string;
  accountId: string;
  kind: ExposureKind;
  name: string;
  /** Workflows only: the owner's instruction the model follows. */
  instruction: string | null;
  secretHash: string;
  hint: string;
  createdAt: number;
  revokedAt: number | null;
  lastUsedAt: number | null;
  containerIds: string[];
}

export type CredentialPatch = Partial<Pick<Credential, 'name' | 'level' | 'profile' | 'allContainers' | 'revokedAt'>>;

export interface Rule {
  id: string;
  accountId: string;
  credentialId: string | null;
  text: string;
  createdAt: number;
}

export interface PassageInput {
  position: number;
  title: string | null;
  content: string;
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
  /** Higher is better. */
  score: number;
}

export interface UsageSummary {
  perDay: { day: string; calls: number; refused: number }[];
  perTool: { tool: string; calls: number; refused: number }[];
  refused: number;
  recent: { at: number; tool: string; outcome: UsageOutcome; status: number }[];
}

export type JobKind = 'learn_document' | 'embed_memory' | 'reembed';

export interface LearningJob {
  id: number;
  /** Null for work of the whole server (re-embedding). */
  accountId: string | null;
  kind: JobKind;
  documentId: string | null;
  memoryId: string | null;
  attempts: number;
  /**
   * A learn_document job that rebuilds a document learned elsewhere (see `DocumentLearning`):
   * passages and vectors only, no fact extraction, and the document keeps its times.
   */
  rebuild: boolean;
}

/**
 * What learning does with a newly inserted document. `learn` (every document an app adds): read
 * it, index it and extract its facts. `rebuild` (a document that was learned on another server
 * and arrives by import, its facts with it): index it again, extract nothing, keep its learned
 * and updated times; `passages` are the text a URL document was read as there, indexed as they
 * are rather than fetched again. `none`: queue nothing (a document that failed there stays failed).
 */
export type DocumentLearning = { mode: 'learn' } | { mode: 'rebuild'; passages?: PassageInput[] | null } | { mode: 'none' };

/** One earlier wording of a fact. */
export interface FactHistoryEntry {
  content: string;
  replacedAt: number;
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

export interface DocumentPage {
  documents: DocumentRow[];
  /** Where the next page starts, or null when no documents follow the last one. */
  next: DocumentPosition | null;
}

/**
 * Where a page of documents starts: just after this position, newest first. `seq` orders documents
 * added in the same millisecond by when they were stored (random ids cannot).
 */
export interface DocumentPosition {
  createdAt: number;
  seq: number;
}

/**
 * A write's idempotency key as remembered (src/operations/idempotency.ts), per account and
 * credential: `pending` while the first attempt runs, `done` with its answer, `interrupted` when the
 * server stopped while it ran (its outcome is unknown).
 */
export interface IdempotencyRecord {
  accountId: string;
  credentialId: string;
  key: string;
  /** SHA-256 of the operation and its input: the same key with another request is refused. */
  digest: string;
  state: 'pending' | 'done' | 'interrupted';
  /** The first answer's JSON, once `done`. */
  response: string | null;
  createdAt: number;
  expiresAt: number;
}

/** What a forgetting removes: one document, or a container with everything in it. */
export type ForgetTarget = { documentId: string } | { containerId: string };

/**
 * What deleting a target takes with it: its documents, their passages, and the facts learned from
 * them (those of a deleted container too). Learned facts the owner reviewed (edited or confirmed)
 * are `kept`, their source cleared, unless named in `forget`'s `alsoKept`.
 */
export interface ForgettingPlan {
  documents: number;
  /** The documents' passages (a fact's own passage goes with the fact). */
  passages: number;
  facts: Memory[];
  kept: Memory[];
}

/** What a forgetting removed, in the plan's terms, and every passage id gone (for in-memory indexes). */
export interface ForgettingDone {
  documents: number;
  passages: number;
  facts: number;
  kept: number;
  passageIds: number[];
}

/** The kinds of exported things an import remembers (docs/decisions.md, "Importing twice"). */
export type ImportedKind = 'container' | 'document' | 'fact' | 'rule';

/** One exported thing an import brought in: named by its source and exported id, and what it became here. */
export interface ImportOrigin {
  accountId: string;
  /** The exporting account's id; '' for files older than that. */
  source: string;
  kind: ImportedKind;
  exportedId: string;
  /** The id of the container, document, fact or rule it became in this account. */
  localId: string;
  importedAt: number;
}

export interface Store {
  /** Runs `fn` in one transaction: every write of one operation commits together or not at all. */
  transaction<T>(fn: () => T): T;
  /**
   * Runs `fn`'s reads on one consistent snapshot of the store, without holding back writers (an
   * export while the server runs). Writes belong in `transaction`.
   */
  snapshot<T>(fn: () => T): T;
  close(): void;

  countAccounts(): number;
  listAccounts(): Account[];
  getAccount(id: string): Account | null;
  insertAccount(account: Account): void;
  getAccountByEmail(email: string): Account | null;
  insertSession(session: Session): void;
  getSession(id: string): Session | null;
  deleteSession(id: string): void;

  listContainers(accountId: string): Container[];
  getContainer(accountId: string, id: string): Container | null;
  getContainerByName(accountId: string, name: string): Container | null;
  insertContainer(container: Container): void;
  updateContainer(accountId: string, id: string, patch: { name?: string; description?: string; updatedAt: number }): void;
  deleteContainer(accountId: string, id: string): void;

  insertCredential(credential: Credential): void;
  /** Looks a credential up by id alone: authentication does not know the account yet. */
  getCredentialById(id: string): Credential | null;
  getCredential(accountId: string, id: string): Credential | null;
  /** The account's credentials of one kind (developer keys unless told), newest first. */
  listCredentials(accountId: string, kind?: CredentialKind): Credential[];
  updateCredential(accountId: string, id: string, patch: CredentialPatch): void;
  setCredentialContainers(accountId: string, id: string, containerIds: string[]): void;
  touchCredential(id: string, at: number): void;
  /** Revokes every unrevoked consent token the app holds on the account; returns how many. */
  revokeConsentTokens(accountId: string, clientId: string, at: number): number;

  insertExposure(exposure: Exposure): void;
  getExposureById(id: string): Exposure | null;
  /** The account's exposures, newest first. */
  listExposures(accountId: string): Exposure[];
  /** Marks the exposure revoked (once); false when the account holds no such exposure. */
  revokeExposure(accountId: string, id: string, at: number): boolean;

  /** The value of a server-wide setting, inserted first as `make()` when there is none (race-free). */
  ensureSetting(key: string, make: () => string): string;

  insertOAuthClient(client: OAuthClient): void;
  /** Inserts, or replaces what is stored of the app while keeping its creation and use times. */
  upsertOAuthClient(client: OAuthClient): void;
  getOAuthClient(clientId: string): OAuthClient | null;
  /** Records that an owner approved the app: it no longer expires unused. */
  markOAuthClientUsed(clientId: string, at: number): void;
  /** Forgets registrations never approved before their expiry; returns how many. */
  deleteExpiredOAuthClients(now: number): number;

  insertAuthorizationCode(code: AuthorizationCode): void;
  getAuthorizationCode(id: string): AuthorizationCode | null;
  /** Marks the code used; false when it already was (a replay). */
  useAuthorizationCode(id: string, at: number): boolean;
  setAuthorizationCodeToken(id: string, tokenId: string): void;
  /** Deletes codes that expired before `before`; returns how many. */
  deleteExpiredAuthorizationCodes(before: number): number;

  /**
   * Inserts the document and its learning job (`learn` unless told, see `DocumentLearning`), or
   * returns the one already holding `customId` and changes nothing. The job is queued at
   * `queuedAt`, the document's creation unless told (an import queues old documents now).
   */
  insertDocument(doc: DocumentRow, learning?: DocumentLearning, queuedAt?: number): { inserted: boolean; document: DocumentRow };
  getDocument(accountId: string, id: string): DocumentRow | null;
  listDocuments(accountId: string, containerIds: string[], limit: number, after: DocumentPosition | null): DocumentPage;
  /** The account's documents in the order they were stored, a page after `afterSeq` (0 to start). */
  listDocumentsInInsertOrder(accountId: string, afterSeq: number, limit: number): { documents: DocumentRow[]; lastSeq: number | null };
  deleteDocument(accountId: string, id: string): void;

  /** Inserts a fact, with its earlier wordings (oldest first) when it arrives with a history (an import). */
  insertMemory(memory: Memory, history?: FactHistoryEntry[]): void;
  getMemory(accountId: string, id: string): Memory | null;
  /**
   * Rewrites a fact, keeping its old content in its history (and its passage, when in a container,
   * searchable under the new content); false when the account holds no such fact.
   */
  updateMemoryContent(accountId: string, id: string, content: string, at: number, source?: FactSource): boolean;
  /** The fact's earlier contents, oldest first. */
  listMemoryHistory(accountId: string, id: string): FactHistoryEntry[];
  listStaticFacts(accountId: string): Memory[];
  /** Every fact of the account, oldest first. */
  listMemories(accountId: string): Memory[];
  listRecentFacts(accountId: string, containerIds: string[], limit: number): Memory[];

  /** BM25 full-text search over one container's passages; `query` is plain text, never FTS syntax. */
  searchPassages(accountId: string, containerId: string, query: string, limit: number): PassageHit[];
  listPassages(accountId: string, documentId: string): PassageInput[];

  listRules(accountId: string, credentialId: string | null): Rule[];
  insertRule(rule: Rule): void;
  getRule(accountId: string, id: string): Rule | null;
  deleteRule(accountId: string, id: string): void;

  recordUsage(entry: { accountId: string; credentialId: string; tool: string; outcome: UsageOutcome; status: number; at: number }): void;
  summarizeUsage(accountId: string, credentialId: string, sinceMs: number): UsageSummary;

  /** Takes up to `limit` of the oldest ready jobs and marks them running, in one transaction. */
  claimJobs(now: number, limit: number): LearningJob[];
  /**
   * Stores a document's passages (and their vectors, when an embedder runs), marks it learned and
   * its job done, all in one transaction. Returns the new passages' ids.
   */
  completeDocument(job: LearningJob, passages: PassageInput[], vectors: Float32Array[][] | null, now: number): number[];
  /**
   * Stores (replacing) passages' vectors of one tier, ignoring any passage deleted meanwhile;
   * returns the ids of the passages whose vectors were stored.
   */
  storeVectors(tier: VectorTier, vectors: PassageVectors[]): number[];
  /** Marks a job done with nothing to store. */
  completeJob(job: LearningJob, now: number): void;
  /** Records a failure: the job retries after `retryAt`, or with null fails for good with the document. */
  failJob(job: LearningJob, error: string, retryAt: number | null, now: number): void;
  /** Puts jobs left running by a stopped server back in the queue. */
  requeueRunningJobs(now: number): number;
  /** Puts claimed jobs that were never started back in the queue, their claim not counted as an attempt. */
  releaseJobs(jobs: LearningJob[], now: number): void;
  /** Whether a job of this kind is queued or running (a re-embedding, say). */
  hasPendingJob(kind: JobKind): boolean;
  /** Jobs queued or running, every account together (a progress figure, no account data). */
  countPendingJobs(): number;

  /** The model a tier's stored vectors come from, or null when none has been used. */
  getEmbeddingModel(tier: VectorTier): EmbeddingModel | null;
  /**
   * Records the model a tier uses. A different one drops the tier's stored vectors; for the fast
   * tier it also queues a re-embedding job (the strong tier refines on its own). Returns whether
   * the model changed.
   */
  setEmbeddingModel(tier: VectorTier, model: EmbeddingModel, now: number): boolean;
  /** A tier's stored vectors by passage, for building the in-memory index; `after` pages by passage id. */
  listVectors(tier: VectorTier, afterPassageId: number, limit: number): StoredVectors[];
  getVectors(tier: VectorTier, passageIds: number[]): StoredVectors[];
  /** Passages after `afterPassageId` with no vector of the tier yet, oldest first: re-embedding's and refinement's work list. */
  listPassagesWithoutVectors(tier: VectorTier, afterPassageId: number, limit: number): PassageText[];
  /** How many passages the server holds, every account together (a progress figure, no account data). */
  countPassages(): number;
  /** The memory's passage, for embedding a fact. */
  getMemoryPassage(memoryId: string): PassageText | null;
  /** Passages by id within one account, with what a search hit cites. */
  getPassageHits(accountId: string, passageIds: number[]): PassageHit[];

  // Idempotency keys of writes
  /** The key's record unless it has expired by `now`. */
  getIdempotencyKey(accountId: string, credentialId: string, key: string, now: number): IdempotencyRecord | null;
  /** Writes the record, replacing one under the same key (an expired one, or its own pending row). */
  putIdempotencyKey(record: IdempotencyRecord): void;
  /** Forgets a key whose first attempt failed, so that a retry is carried out for real. */
  deleteIdempotencyKey(accountId: string, credentialId: string, key: string): void;
  /** Forgets every key expired by `now`; returns how many. */
  deleteExpiredIdempotencyKeys(now: number): number;
  /** At start, when nothing runs: pending keys become interrupted; returns how many. */
  interruptPendingIdempotencyKeys(): number;

  // Forgetting (docs/decisions.md, "Forgetting that forgets")
  /** What `forget` would remove now; null when the account holds no such document or container. */
  planForgetting(accountId: string, target: ForgetTarget): ForgettingPlan | null;
  /**
   * Deletes the target with its passages, vectors and the facts learned from it, in one
   * transaction; reviewed facts are kept (source cleared) unless their ids are in `alsoKept`. The
   * keyword index is purged of the removed text and the deleted bytes are zeroed in the file, then
   * the WAL is checkpointed and truncated when no reader holds it. Null when there is no such target.
   */
  forget(accountId: string, target: ForgetTarget, alsoKept: string[]): ForgettingDone | null;
  /**
   * Deletes one fact as `forget` deletes a document's: its passage, vectors and keyword index
   * entries purged, the WAL truncated. Returns its passages' ids, or null when there is no such fact.
   */
  forgetFact(accountId: string, id: string): number[] | null;
  /** Records that the owner confirmed (or edited) the fact at `at`; false when the account holds no such fact. */
  markFactReviewed(accountId: string, id: string, at: number): boolean;
  /** Per document: its size in bytes (its text, or what a URL was read as) and its first characters. */
  describeDocuments(accountId: string, ids: string[], openingChars: number): Map<string, { bytes: number; opening: string }>;

  // Import origins (engram import)
  /** What an earlier import made of the exported thing, while that is still there (a delete drops the record); null otherwise. */
  getImportOrigin(accountId: string, source: string, kind: ImportedKind, exportedId: string): string | null;
  /** Records what an import made of an exported thing. */
  insertImportOrigin(origin: ImportOrigin): void;
}

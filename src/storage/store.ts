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
}

export interface Credential {
  id: string;
  accountId: string;
  kind: 'developer_key';
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

export interface LearningJob {
  id: number;
  accountId: string;
  kind: string;
  documentId: string | null;
  attempts: number;
}

export interface DocumentPage {
  documents: DocumentRow[];
  /** True when more documents follow the last one. */
  more: boolean;
}

/** Where a page of documents starts: just after this one, newest first. */
export interface DocumentPosition {
  createdAt: number;
  id: string;
}

export interface Store {
  /** Runs `fn` in one transaction: every write of one operation commits together or not at all. */
  transaction<T>(fn: () => T): T;
  close(): void;

  countAccounts(): number;
  listAccounts(): Account[];
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
  listCredentials(accountId: string): Credential[];
  updateCredential(accountId: string, id: string, patch: CredentialPatch): void;
  setCredentialContainers(accountId: string, id: string, containerIds: string[]): void;
  touchCredential(id: string, at: number): void;

  /** Inserts the document and its learning job, or returns the one already holding `customId`. */
  insertDocument(doc: DocumentRow): { inserted: boolean; document: DocumentRow };
  getDocument(accountId: string, id: string): DocumentRow | null;
  listDocuments(accountId: string, containerIds: string[], limit: number, after: DocumentPosition | null): DocumentPage;
  deleteDocument(accountId: string, id: string): void;

  insertMemory(memory: Memory): void;
  getMemory(accountId: string, id: string): Memory | null;
  deleteMemory(accountId: string, id: string): void;
  listStaticFacts(accountId: string): Memory[];
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

  /** Takes the oldest ready job and marks it running; null when none is ready. */
  claimJob(now: number): LearningJob | null;
  /** Stores a document's passages, marks it learned and its job done, all in one transaction. */
  completeDocument(job: LearningJob, passages: PassageInput[], now: number): void;
  /** Records a failure: the job retries after `retryAt`, or with null fails for good with the document. */
  failJob(job: LearningJob, error: string, retryAt: number | null, now: number): void;
  /** Puts jobs left running by a stopped server back in the queue. */
  requeueRunningJobs(now: number): number;
}

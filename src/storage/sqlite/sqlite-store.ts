/** The Store over one SQLite file: drizzle for plain rows, hand-written SQL for FTS5 and the queue. */
import type { Database } from 'bun:sqlite';
import { and, desc, eq, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { type BunSQLiteDatabase, drizzle } from 'drizzle-orm/bun-sqlite';
import type {
  Account, AuthorizationCode, IdempotencyRecord, Container, Credential, CredentialKind, CredentialPatch, Exposure, FactHistoryEntry, FactSource, ForgetTarget, ForgettingDone, ForgettingPlan, ImportedKind, ImportOrigin, OAuthClient, DocumentLearning, DocumentPage, DocumentPosition, DocumentRow, EmbeddingModel, JobKind,
  LearningJob, Memory, PassageHit, PassageInput, PassageText, PassageVectors, Rule, Session, Store, StoredVectors, UsageOutcome, UsageSummary, VectorTier,
} from '../store';
import { ftsQuery } from './fts-query';
import * as t from './schema';
import { int8Vector, storedVector } from './vectors';

/** The settings row naming each tier's model (the fast tier's keeps the name it had before tiers). */
const EMBEDDING_MODEL_KEYS: Record<VectorTier, string> = { fast: 'embedding_model', strong: 'embedding_model_strong' };

/** What a search hit reads of a passage (`p`) and its document (`d`). */
const PASSAGE_HIT_COLUMNS = `SELECT p.id AS passageId, p.container_id AS containerId, p.document_id AS documentId,
             p.memory_id AS memoryId, d.custom_id AS customId, p.position, p.title, p.content`;

type CredentialRow = typeof t.credentials.$inferSelect;

export class SqliteStore implements Store {
  private readonly db: BunSQLiteDatabase;

  constructor(private readonly raw: Database) {
    this.db = drizzle(raw);
  }

  /**
   * BEGIN IMMEDIATE: the write lock is taken at the start. A deferred transaction that reads and
   * then writes fails at once with SQLITE_BUSY (no busy wait) when another connection, such as
   * the learning worker's, committed in between. Nested calls become savepoints.
   */
  transaction<T>(fn: () => T): T {
    return this.raw.transaction(fn).immediate();
  }

  /** BEGIN DEFERRED: in WAL mode the first read fixes the snapshot, and writers go on meanwhile. */
  snapshot<T>(fn: () => T): T {
    return this.raw.transaction(fn).deferred();
  }

  close(): void {
    this.raw.close();
  }

  // Accounts and sessions

  countAccounts(): number {
    return this.db.select({ n: sql<number>`count(*)` }).from(t.accounts).get()!.n;
  }

  listAccounts(): Account[] {
    return this.db.select().from(t.accounts).orderBy(t.accounts.createdAt).all();
  }

  getAccount(id: string): Account | null {
    return this.db.select().from(t.accounts).where(eq(t.accounts.id, id)).get() ?? null;
  }

  insertAccount(account: Account): void {
    this.db.insert(t.accounts).values(account).run();
  }

  getAccountByEmail(email: string): Account | null {
    return this.db.select().from(t.accounts).where(sql`${t.accounts.email} = ${email} COLLATE NOCASE`).get() ?? null;
  }

  insertSession(session: Session): void {
    this.db.insert(t.sessions).values(session).run();
  }

  getSession(id: string): Session | null {
    return this.db.select().from(t.sessions).where(eq(t.sessions.id, id)).get() ?? null;
  }

  deleteSession(id: string): void {
    this.db.delete(t.sessions).where(eq(t.sessions.id, id)).run();
  }

  // Containers

  listContainers(accountId: string): Container[] {
    // rowid after created_at: containers made in the same millisecond stay oldest first.
    return this.db.select().from(t.containers).where(eq(t.containers.accountId, accountId))
      .orderBy(t.containers.createdAt, sql`${t.containers}.rowid`).all();
  }

  getContainer(accountId: string, id: string): Container | null {
    return this.db.select().from(t.containers).where(and(eq(t.containers.accountId, accountId), eq(t.containers.id, id))).get() ?? null;
  }

  getContainerByName(accountId: string, name: string): Container | null {
    return this.db.select().from(t.containers).where(and(eq(t.containers.accountId, accountId), eq(t.containers.name, name))).get() ?? null;
  }

  insertContainer(container: Container): void {
    this.db.insert(t.containers).values(container).run();
  }

  updateContainer(accountId: string, id: string, patch: { name?: string; description?: string; updatedAt: number }): void {
    this.db.update(t.containers).set(patch).where(and(eq(t.containers.accountId, accountId), eq(t.containers.id, id))).run();
  }

  deleteContainer(accountId: string, id: string): void {
    this.db.delete(t.containers).where(and(eq(t.containers.accountId, accountId), eq(t.containers.id, id))).run();
  }

  // Credentials

  insertCredential(credential: Credential): void {
    const { containerIds, kind, ...rest } = credential;
    // Exposures are rows of their own table; only keys and consent tokens are credentials.
    if (kind !== 'developer_key' && kind !== 'consent_token') throw new Error(`A ${kind} is not stored as a credential.`);
    const row = { ...rest, kind };
    this.transaction(() => {
      this.db.insert(t.credentials).values(row).run();
      this.writeCredentialContainers(credential.id, containerIds);
    });
  }

  getCredentialById(id: string): Credential | null {
    const row = this.db.select().from(t.credentials).where(eq(t.credentials.id, id)).get();
    return row ? this.withContainers(row) : null;
  }

  getCredential(accountId: string, id: string): Credential | null {
    const row = this.db.select().from(t.credentials).where(and(eq(t.credentials.accountId, accountId), eq(t.credentials.id, id))).get();
    return row ? this.withContainers(row) : null;
  }

  listCredentials(accountId: string, kind: CredentialKind = 'developer_key'): Credential[] {
    return this.db.select().from(t.credentials).where(and(eq(t.credentials.accountId, accountId), eq(t.credentials.kind, kind)))
      .orderBy(desc(t.credentials.createdAt), desc(t.credentials.id)).all().map((r) => this.withContainers(r));
  }

  updateCredential(accountId: string, id: string, patch: CredentialPatch): void {
    if (Object.keys(patch).length === 0) return;
    this.db.update(t.credentials).set(patch).where(and(eq(t.credentials.accountId, accountId), eq(t.credentials.id, id))).run();
  }

  setCredentialContainers(accountId: string, id: string, containerIds: string[]): void {
    this.transaction(() => {
      const owned = this.db.select({ id: t.credentials.id }).from(t.credentials)
        .where(and(eq(t.credentials.accountId, accountId), eq(t.credentials.id, id))).get();
      if (!owned) return;
      this.db.delete(t.credentialContainers).where(eq(t.credentialContainers.credentialId, id)).run();
      this.writeCredentialContainers(id, containerIds);
    });
  }

  touchCredential(id: string, at: number): void {
    this.db.update(t.credentials).set({ lastUsedAt: at }).where(eq(t.credentials.id, id)).run();
  }

  revokeConsentTokens(accountId: string, clientId: string, at: number): number {
    return this.db.update(t.credentials).set({ revokedAt: at }).where(and(
      eq(t.credentials.accountId, accountId), eq(t.credentials.kind, 'consent_token'),
      eq(t.credentials.clientId, clientId), isNull(t.credentials.revokedAt),
    )).returning({ id: t.credentials.id }).all().length;
  }

  // Exposures

  insertExposure(exposure: Exposure): void {
    const { containerIds, ...row } = exposure;
    this.transaction(() => {
      this.db.insert(t.exposures).values(row).run();
      if (containerIds.length) {
        this.db.insert(t.exposureContainers).values(containerIds.map((containerId) => ({ exposureId: exposure.id, containerId }))).run();
      }
    });
  }

  getExposureById(id: string): Exposure | null {
    const row = this.db.select().from(t.exposures).where(eq(t.exposures.id, id)).get();
    return row ? this.exposureWithContainers(row) : null;
  }

  listExposures(accountId: string): Exposure[] {
    return this.db.select().from(t.exposures).where(eq(t.exposures.accountId, accountId))
      .orderBy(desc(t.exposures.createdAt), desc(t.exposures.id)).all().map((r) => this.exposureWithContainers(r));
  }

  revokeExposure(accountId: string, id: string, at: number): boolean {
    const row = this.db.select({ revokedAt: t.exposures.revokedAt }).from(t.exposures)
      .where(and(eq(t.exposures.accountId, accountId), eq(t.exposures.id, id))).get();
    if (!row) return false;
    if (row.revokedAt == null) this.db.update(t.exposures).set({ revokedAt: at }).where(eq(t.exposures.id, id)).run();
    return true;
  }

  private exposureWithContainers(row: typeof t.exposures.$inferSelect): Exposure {
    const ids = this.db.select({ id: t.exposureContainers.containerId }).from(t.exposureContainers)
      .where(eq(t.exposureContainers.exposureId, row.id)).all().map((r) => r.id);
    return { ...row, containerIds: ids };
  }

  ensureSetting(key: string, make: () => string): string {
    return this.transaction(() => {
      this.db.insert(t.settings).values({ key, value: make() }).onConflictDoNothing().run();
      return this.db.select().from(t.settings).where(eq(t.settings.key, key)).get()!.value;
    });
  }

  // OAuth apps and authorization codes

  insertOAuthClient(client: OAuthClient): void {
    this.db.insert(t.oauthClients).values(client).run();
  }

  upsertOAuthClient(client: OAuthClient): void {
    const { clientId: _, createdAt: __, lastUsedAt: ___, ...fresh } = client;
    this.db.insert(t.oauthClients).values(client).onConflictDoUpdate({ target: t.oauthClients.clientId, set: fresh }).run();
  }

  getOAuthClient(clientId: string): OAuthClient | null {
    return this.db.select().from(t.oauthClients).where(eq(t.oauthClients.clientId, clientId)).get() ?? null;
  }

  markOAuthClientUsed(clientId: string, at: number): void {
    this.db.update(t.oauthClients).set({ lastUsedAt: at, expiresAt: null }).where(eq(t.oauthClients.clientId, clientId)).run();
  }

  deleteExpiredOAuthClients(now: number): number {
    return this.db.delete(t.oauthClients).where(lt(t.oauthClients.expiresAt, now)).returning({ id: t.oauthClients.clientId }).all().length;
  }

  insertAuthorizationCode(code: AuthorizationCode): void {
    this.db.insert(t.oauthCodes).values(code).run();
  }

  getAuthorizationCode(id: string): AuthorizationCode | null {
    return this.db.select().from(t.oauthCodes).where(eq(t.oauthCodes.id, id)).get() ?? null;
  }

  useAuthorizationCode(id: string, at: number): boolean {
    // One UPDATE guarded by `used_at IS NULL`: two concurrent exchanges cannot both win.
    return this.db.update(t.oauthCodes).set({ usedAt: at }).where(and(eq(t.oauthCodes.id, id), isNull(t.oauthCodes.usedAt)))
      .returning({ id: t.oauthCodes.id }).all().length === 1;
  }

  setAuthorizationCodeToken(id: string, tokenId: string): void {
    this.db.update(t.oauthCodes).set({ tokenId }).where(eq(t.oauthCodes.id, id)).run();
  }

  deleteExpiredAuthorizationCodes(before: number): number {
    return this.db.delete(t.oauthCodes).where(lt(t.oauthCodes.expiresAt, before)).returning({ id: t.oauthCodes.id }).all().length;
  }

  private writeCredentialContainers(credentialId: string, containerIds: string[]): void {
    if (containerIds.length === 0) return;
    this.db.insert(t.credentialContainers).values(containerIds.map((containerId) => ({ credentialId, containerId }))).run();
  }

  private withContainers(row: CredentialRow): Credential {
    const ids = this.db.select({ id: t.credentialContainers.containerId }).from(t.credentialContainers)
      .where(eq(t.credentialContainers.credentialId, row.id)).all().map((r) => r.id);
    return { ...row, containerIds: ids };
  }

  // Documents

  insertDocument(doc: DocumentRow, learning: DocumentLearning = { mode: 'learn' }, queuedAt = doc.createdAt): { inserted: boolean; document: DocumentRow } {
    return this.transaction(() => {
      const inserted = this.db.insert(t.documents).values(doc).onConflictDoNothing().returning().get();
      if (inserted) {
        if (learning.mode === 'rebuild' && learning.passages?.length) {
          // What the URL was read as on the other server: the rebuild indexes these, not a new fetch.
          this.db.insert(t.passages).values(learning.passages.map((p) => ({
            accountId: doc.accountId, containerId: doc.containerId, documentId: doc.id, ...p,
          }))).run();
        }
        if (learning.mode !== 'none') {
          this.enqueue(doc.accountId, 'learn_document', { documentId: doc.id }, queuedAt, learning.mode === 'rebuild');
        }
        return { inserted: true, document: inserted };
      }
      const existing = this.db.select().from(t.documents)
        .where(and(eq(t.documents.containerId, doc.containerId), eq(t.documents.customId, doc.customId!))).get()!;
      return { inserted: false, document: existing };
    });
  }

  getDocument(accountId: string, id: string): DocumentRow | null {
    return this.db.select().from(t.documents).where(and(eq(t.documents.accountId, accountId), eq(t.documents.id, id))).get() ?? null;
  }

  listDocuments(accountId: string, containerIds: string[], limit: number, after: DocumentPosition | null): DocumentPage {
    if (containerIds.length === 0) return { documents: [], next: null };
    // The rowid grows with each insert: it orders documents of the same millisecond newest first.
    const seq = sql<number>`${t.documents}.rowid`;
    const rows = this.db.select({ doc: t.documents, seq }).from(t.documents).where(and(
      eq(t.documents.accountId, accountId),
      inArray(t.documents.containerId, containerIds),
      after ? or(lt(t.documents.createdAt, after.createdAt), and(eq(t.documents.createdAt, after.createdAt), lt(seq, after.seq))) : undefined,
    )).orderBy(desc(t.documents.createdAt), desc(seq)).limit(limit + 1).all();
    const last = rows[limit - 1];
    return {
      documents: rows.slice(0, limit).map((r) => r.doc),
      next: rows.length > limit && last ? { createdAt: last.doc.createdAt, seq: last.seq } : null,
    };
  }

  listDocumentsInInsertOrder(accountId: string, afterSeq: number, limit: number): { documents: DocumentRow[]; lastSeq: number | null } {
    const seq = sql<number>`${t.documents}.rowid`;
    const rows = this.db.select({ doc: t.documents, seq }).from(t.documents)
      .where(and(eq(t.documents.accountId, accountId), sql`${seq} > ${afterSeq}`)).orderBy(seq).limit(limit).all();
    return { documents: rows.map((r) => r.doc), lastSeq: rows.at(-1)?.seq ?? null };
  }

  deleteDocument(accountId: string, id: string): void {
    this.db.delete(t.documents).where(and(eq(t.documents.accountId, accountId), eq(t.documents.id, id))).run();
  }

  // Facts

  insertMemory(memory: Memory, history: FactHistoryEntry[] = []): void {
    this.transaction(() => {
      this.db.insert(t.memories).values(memory).run();
      if (history.length) this.db.insert(t.memoryHistory).values(history.map((h) => ({ memoryId: memory.id, ...h }))).run();
      // A fact in a container is searchable at once, as a passage of its own.
      if (memory.containerId) {
        this.db.insert(t.passages).values({
          accountId: memory.accountId, containerId: memory.containerId, memoryId: memory.id,
          position: 0, title: memory.title, content: memory.content,
        }).run();
        this.enqueue(memory.accountId, 'embed_memory', { memoryId: memory.id }, memory.createdAt);
      }
    });
  }

  getMemory(accountId: string, id: string): Memory | null {
    return this.db.select().from(t.memories).where(and(eq(t.memories.accountId, accountId), eq(t.memories.id, id))).get() ?? null;
  }

  private deleteMemory(accountId: string, id: string): void {
    this.db.delete(t.memories).where(and(eq(t.memories.accountId, accountId), eq(t.memories.id, id))).run();
  }

  updateMemoryContent(accountId: string, id: string, content: string, at: number, source?: FactSource): boolean {
    return this.transaction(() => {
      const old = this.getMemory(accountId, id);
      if (!old) return false;
      this.db.insert(t.memoryHistory).values({ memoryId: id, content: old.content, replacedAt: at }).run();
      const from = source ? { sourceDocumentId: source.documentId, sourcePosition: source.position } : {};
      this.db.update(t.memories).set({ content, updatedAt: at, ...from }).where(eq(t.memories.id, id)).run();
      if (old.containerId) {
        this.db.update(t.passages).set({ content }).where(eq(t.passages.memoryId, id)).run();
        this.enqueue(accountId, 'embed_memory', { memoryId: id }, at);
      }
      return true;
    });
  }

  listMemoryHistory(accountId: string, id: string): FactHistoryEntry[] {
    if (!this.getMemory(accountId, id)) return [];
    return this.db.select({ content: t.memoryHistory.content, replacedAt: t.memoryHistory.replacedAt }).from(t.memoryHistory)
      .where(eq(t.memoryHistory.memoryId, id)).orderBy(t.memoryHistory.id).all();
  }

  listStaticFacts(accountId: string): Memory[] {
    return this.db.select().from(t.memories).where(and(eq(t.memories.accountId, accountId), eq(t.memories.static, true)))
      .orderBy(desc(t.memories.updatedAt), desc(t.memories.id)).all();
  }

  listMemories(accountId: string): Memory[] {
    // rowid breaks ties in insertion order: ids are random, so an export and its re-import would otherwise disagree.
    return this.db.select().from(t.memories).where(eq(t.memories.accountId, accountId)).orderBy(t.memories.createdAt, sql`rowid`).all();
  }

  listRecentFacts(accountId: string, containerIds: string[], limit: number): Memory[] {
    if (containerIds.length === 0) return [];
    return this.db.select().from(t.memories).where(and(
      eq(t.memories.accountId, accountId), eq(t.memories.static, false), inArray(t.memories.containerId, containerIds),
    )).orderBy(desc(t.memories.updatedAt), desc(t.memories.id)).limit(limit).all();
  }

  // Passages

  /**
   * BM25 ranks in the full-text index alone first: its best `limit × 10` passages of any container
   * are looked up, and those in the container kept. When that leaves `limit` or more, they are
   * exactly the container's best (every passage not looked up ranks below them); otherwise the
   * exact query ranks every match of the container. The first step spares reading the rows of
   * thousands of matches that cannot make the page. (CROSS JOIN keeps SQLite from driving the
   * join from the container's every passage instead.)
   */
  searchPassages(accountId: string, containerId: string, query: string, limit: number): PassageHit[] {
    const match = ftsQuery(query);
    if (!match) return [];
    const quick = this.raw.query<PassageHit, [string, number, string, string, number]>(`
      WITH best AS MATERIALIZED (
        SELECT rowid AS id, -bm25(passages_fts, 0.5, 1.0) AS score FROM passages_fts
         WHERE passages_fts MATCH ? ORDER BY score DESC LIMIT ?)
      ${PASSAGE_HIT_COLUMNS}, best.score AS score
        FROM best CROSS JOIN passages p ON p.id = best.id LEFT JOIN documents d ON d.id = p.document_id
       WHERE p.container_id = ? AND p.account_id = ?
       ORDER BY best.score DESC LIMIT ?`).all(match, limit * 10, containerId, accountId, limit);
    if (quick.length >= limit) return quick;
    return this.raw.query<PassageHit, [string, string, string, number]>(`
      ${PASSAGE_HIT_COLUMNS}, -bm25(passages_fts, 0.5, 1.0) AS score
        FROM passages_fts
        CROSS JOIN passages p ON p.id = passages_fts.rowid
        LEFT JOIN documents d ON d.id = p.document_id
       WHERE passages_fts MATCH ? AND p.container_id = ? AND p.account_id = ?
       ORDER BY score DESC
       LIMIT ?`).all(match, containerId, accountId, limit);
  }

  listPassages(accountId: string, documentId: string): PassageInput[] {
    return this.db.select({ position: t.passages.position, title: t.passages.title, content: t.passages.content })
      .from(t.passages).where(and(eq(t.passages.accountId, accountId), eq(t.passages.documentId, documentId)))
      .orderBy(t.passages.position).all();
  }

  // Rules

  listRules(accountId: string, credentialId: string | null): Rule[] {
    return this.db.select().from(t.rules).where(and(
      eq(t.rules.accountId, accountId),
      credentialId ? or(isNull(t.rules.credentialId), eq(t.rules.credentialId, credentialId)) : undefined,
    )).orderBy(t.rules.createdAt, sql`${t.rules}.rowid`).all(); // rowid: rules of one millisecond in the order made
  }

  insertRule(rule: Rule): void {
    this.db.insert(t.rules).values(rule).run();
  }

  getRule(accountId: string, id: string): Rule | null {
    return this.db.select().from(t.rules).where(and(eq(t.rules.accountId, accountId), eq(t.rules.id, id))).get() ?? null;
  }

  deleteRule(accountId: string, id: string): void {
    this.db.delete(t.rules).where(and(eq(t.rules.accountId, accountId), eq(t.rules.id, id))).run();
  }

  // Usage

  recordUsage(entry: { accountId: string; credentialId: string; tool: string; outcome: UsageOutcome; status: number; at: number }): void {
    this.db.insert(t.usage).values(entry).run();
  }

  summarizeUsage(accountId: string, credentialId: string, sinceMs: number): UsageSummary {
    const scope = and(eq(t.usage.accountId, accountId), eq(t.usage.credentialId, credentialId), sql`${t.usage.at} >= ${sinceMs}`);
    const refusedCount = sql<number>`sum(${t.usage.outcome} = 'refused')`;
    const day = sql<string>`strftime('%Y-%m-%d', ${t.usage.at} / 1000, 'unixepoch')`;
    const perDay = this.db.select({ day, calls: sql<number>`count(*)`, refused: refusedCount })
      .from(t.usage).where(scope).groupBy(day).orderBy(day).all();
    const perTool = this.db.select({ tool: t.usage.tool, calls: sql<number>`count(*)`, refused: refusedCount })
      .from(t.usage).where(scope).groupBy(t.usage.tool).orderBy(desc(sql`count(*)`), t.usage.tool).all();
    const recent = this.db.select({ at: t.usage.at, tool: t.usage.tool, outcome: t.usage.outcome, status: t.usage.status })
      .from(t.usage).where(and(eq(t.usage.accountId, accountId), eq(t.usage.credentialId, credentialId)))
      .orderBy(desc(t.usage.at), desc(t.usage.id)).limit(20).all();
    return { perDay, perTool, refused: perDay.reduce((n, d) => n + d.refused, 0), recent };
  }

  // Learning queue

  claimJobs(now: number, limit: number): LearningJob[] {
    return this.raw.query<LearningJob, [number, number]>(`
      UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ?1
       WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' AND run_after <= ?1 ORDER BY run_after, id LIMIT ?2)
      RETURNING id, account_id AS accountId, kind, document_id AS documentId, memory_id AS memoryId, attempts, rebuild`)
      .all(now, limit).map((job) => ({ ...job, rebuild: !!job.rebuild })).sort((a, b) => a.id - b.id);
  }

  completeDocument(job: LearningJob, passages: PassageInput[], vectors: Float32Array[][] | null, now: number): number[] {
    return this.transaction(() => {
      const doc = job.accountId && job.documentId ? this.getDocument(job.accountId, job.documentId) : null;
      let ids: number[] = [];
      if (doc) {
        // Passages of an earlier, interrupted attempt are replaced, never doubled.
        this.db.delete(t.passages).where(eq(t.passages.documentId, doc.id)).run();
        if (passages.length) {
          ids = this.db.insert(t.passages).values(passages.map((p) => ({
            accountId: doc.accountId, containerId: doc.containerId, documentId: doc.id, ...p,
          }))).returning({ id: t.passages.id }).all().map((r) => r.id);
        }
        if (vectors) this.insertVectors('fast', ids.map((passageId, i) => ({ passageId, vectors: vectors[i]! })));
        // A rebuilt document (an import) was learned before, elsewhere: it keeps when that was.
        const times = job.rebuild ? { learnedAt: doc.learnedAt ?? now, updatedAt: doc.updatedAt } : { learnedAt: now, updatedAt: now };
        this.db.update(t.documents).set({ status: 'learned', error: null, ...times }).where(eq(t.documents.id, doc.id)).run();
      }
      this.completeJob(job, now);
      return ids;
    });
  }

  storeVectors(tier: VectorTier, vectors: PassageVectors[]): number[] {
    return this.transaction(() => this.insertVectors(tier, vectors));
  }

  completeJob(job: LearningJob, now: number): void {
    this.db.update(t.jobs).set({ state: 'done', error: null, updatedAt: now }).where(eq(t.jobs.id, job.id)).run();
  }

  private insertVectors(tier: VectorTier, vectors: PassageVectors[]): number[] {
    // Only passages that still exist: one deleted while it was being embedded gets no orphan vector.
    const exists = this.raw.query<{ id: number }, [number]>('SELECT id FROM passages WHERE id = ?');
    const clear = this.raw.query('DELETE FROM passage_vectors WHERE passage_id = ? AND tier = ?');
    const insert = this.raw.query('INSERT INTO passage_vectors (passage_id, tier, unit, embedding) VALUES (?, ?, ?, ?)');
    const stored: number[] = [];
    for (const p of vectors) {
      if (!exists.get(p.passageId)) continue;
      clear.run(p.passageId, tier);
      p.vectors.forEach((v, unit) => insert.run(p.passageId, tier, unit, storedVector(v)));
      stored.push(p.passageId);
    }
    return stored;
  }

  failJob(job: LearningJob, error: string, retryAt: number | null, now: number): void {
    this.transaction(() => {
      if (retryAt != null) {
        this.db.update(t.jobs).set({ state: 'queued', error, runAfter: retryAt, updatedAt: now }).where(eq(t.jobs.id, job.id)).run();
        return;
      }
      this.db.update(t.jobs).set({ state: 'failed', error, updatedAt: now }).where(eq(t.jobs.id, job.id)).run();
      if (job.documentId) {
        this.db.update(t.documents).set({ status: 'failed', error, updatedAt: now }).where(eq(t.documents.id, job.documentId)).run();
      }
    });
  }

  hasPendingJob(kind: JobKind): boolean {
    return !!this.raw.query("SELECT 1 FROM jobs WHERE kind = ? AND state IN ('queued', 'running') LIMIT 1").get(kind);
  }

  countPendingJobs(): number {
    return this.raw.query<{ n: number }, []>("SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running')").get()!.n;
  }

  requeueRunningJobs(now: number): number {
    return this.raw.run("UPDATE jobs SET state = 'queued', updated_at = ? WHERE state = 'running'", [now]).changes;
  }

  releaseJobs(jobs: LearningJob[], now: number): void {
    const release = this.raw.query("UPDATE jobs SET state = 'queued', attempts = attempts - 1, updated_at = ? WHERE id = ? AND state = 'running'");
    this.transaction(() => {
      for (const job of jobs) release.run(now, job.id);
    });
  }

  private enqueue(accountId: string | null, kind: JobKind, target: { documentId?: string; memoryId?: string }, now: number, rebuild = false): void {
    this.db.insert(t.jobs).values({
      accountId, kind, documentId: target.documentId ?? null, memoryId: target.memoryId ?? null, state: 'queued',
      attempts: 0, runAfter: now, createdAt: now, updatedAt: now, rebuild,
    }).run();
  }

  // Embeddings

  getEmbeddingModel(tier: VectorTier): EmbeddingModel | null {
    const row = this.db.select().from(t.settings).where(eq(t.settings.key, EMBEDDING_MODEL_KEYS[tier])).get();
    return row ? (JSON.parse(row.value) as EmbeddingModel) : null;
  }

  setEmbeddingModel(tier: VectorTier, model: EmbeddingModel, now: number): boolean {
    return this.transaction(() => {
      const current = this.getEmbeddingModel(tier);
      if (current && current.id === model.id && current.dimensions === model.dimensions) return false;
      this.raw.run('DELETE FROM passage_vectors WHERE tier = ?', [tier]);
      const value = JSON.stringify(model);
      this.db.insert(t.settings).values({ key: EMBEDDING_MODEL_KEYS[tier], value })
        .onConflictDoUpdate({ target: t.settings.key, set: { value } }).run();
      if (tier === 'fast' && this.raw.query('SELECT 1 FROM passages LIMIT 1').get()) this.enqueue(null, 'reembed', {}, now);
      return true;
    });
  }

  listVectors(tier: VectorTier, afterPassageId: number, limit: number): StoredVectors[] {
    const rows = this.raw.query<VectorRow, [VectorTier, number, number]>(`
      WITH page AS (
        SELECT p.id, p.container_id FROM passages p
         WHERE p.id > ?2 AND EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
         ORDER BY p.id LIMIT ?3)
      SELECT page.id AS passageId, page.container_id AS containerId, v.embedding
        FROM page JOIN passage_vectors v ON v.passage_id = page.id AND v.tier = ?1
       ORDER BY page.id, v.unit`).all(tier, afterPassageId, limit);
    return groupVectors(rows);
  }

  getVectors(tier: VectorTier, passageIds: number[]): StoredVectors[] {
    if (passageIds.length === 0) return [];
    const rows = this.raw.query<VectorRow, [VectorTier, string]>(`
      SELECT p.id AS passageId, p.container_id AS containerId, v.embedding
        FROM json_each(?2) ids JOIN passages p ON p.id = ids.value JOIN passage_vectors v ON v.passage_id = p.id AND v.tier = ?1
       ORDER BY p.id, v.unit`).all(tier, JSON.stringify(passageIds));
    return groupVectors(rows);
  }

  listPassagesWithoutVectors(tier: VectorTier, afterPassageId: number, limit: number): PassageText[] {
    return this.raw.query<PassageText, [VectorTier, number, number]>(`
      SELECT p.id, p.title, p.content FROM passages p
       WHERE p.id > ?2 AND NOT EXISTS (SELECT 1 FROM passage_vectors v WHERE v.passage_id = p.id AND v.tier = ?1 AND v.unit = 0)
       ORDER BY p.id LIMIT ?3`).all(tier, afterPassageId, limit);
  }

  countPassages(): number {
    return this.raw.query<{ n: number }, []>('SELECT count(*) AS n FROM passages').get()!.n;
  }

  getMemoryPassage(memoryId: string): PassageText | null {
    return this.db.select({ id: t.passages.id, title: t.passages.title, content: t.passages.content })
      .from(t.passages).where(eq(t.passages.memoryId, memoryId)).get() ?? null;
  }

  getPassageHits(accountId: string, passageIds: number[]): PassageHit[] {
    if (passageIds.length === 0) return [];
    return this.raw.query<PassageHit, (string | number)[]>(`
      ${PASSAGE_HIT_COLUMNS}, 0 AS score
        FROM passages p LEFT JOIN documents d ON d.id = p.document_id
       WHERE p.account_id = ? AND p.id IN (${passageIds.map(() => '?').join(',')})`).all(accountId, ...passageIds);
  }

  // Idempotency keys of writes

  getIdempotencyKey(accountId: string, credentialId: string, key: string, now: number): IdempotencyRecord | null {
    const k = t.idempotencyKeys;
    return this.db.select().from(k)
      .where(and(eq(k.accountId, accountId), eq(k.credentialId, credentialId), eq(k.key, key), gt(k.expiresAt, now))).get() ?? null;
  }

  putIdempotencyKey(record: IdempotencyRecord): void {
    const k = t.idempotencyKeys;
    const { accountId: _a, credentialId: _c, key: _k, ...changes } = record;
    this.db.insert(k).values(record).onConflictDoUpdate({ target: [k.accountId, k.credentialId, k.key], set: changes }).run();
  }

  deleteIdempotencyKey(accountId: string, credentialId: string, key: string): void {
    const k = t.idempotencyKeys;
    this.db.delete(k).where(and(eq(k.accountId, accountId), eq(k.credentialId, credentialId), eq(k.key, key))).run();
  }

  deleteExpiredIdempotencyKeys(now: number): number {
    return this.raw.run('DELETE FROM idempotency_keys WHERE expires_at <= ?', [now]).changes;
  }

  interruptPendingIdempotencyKeys(): number {
    return this.raw.run("UPDATE idempotency_keys SET state = 'interrupted' WHERE state = 'pending'").changes;
  }

  // Forgetting

  planForgetting(accountId: string, target: ForgetTarget): ForgettingPlan | null {
    const scope = this.forgettingScope(accountId, target);
    return scope && this.planOf(accountId, scope);
  }

  private planOf(accountId: string, { documentIds, containerId }: ForgettingScope): ForgettingPlan {
    const passages = this.raw.query<{ n: number }, [string]>(
      'SELECT count(*) AS n FROM json_each(?1) ids JOIN passages p ON p.document_id = ids.value').get(JSON.stringify(documentIds))!.n;
    // Learned from the documents, outside the deleted container (the profile, for a container).
    const learned = this.raw.query<{ id: string }, [string, string, string | null]>(`
      SELECT m.id FROM memories m JOIN json_each(?2) ids ON m.source_document_id = ids.value
       WHERE m.account_id = ?1 AND (?3 IS NULL OR m.container_id IS NOT ?3)
       ORDER BY m.created_at, m.rowid`).all(accountId, JSON.stringify(documentIds), containerId)
      .map((r) => this.getMemory(accountId, r.id)!);
    const inside = containerId
      ? this.db.select().from(t.memories).where(and(eq(t.memories.accountId, accountId), eq(t.memories.containerId, containerId)))
        .orderBy(t.memories.createdAt, sql`rowid`).all()
      : [];
    return {
      documents: documentIds.length,
      passages,
      facts: [...inside, ...learned.filter((m) => m.reviewedAt == null)],
      kept: learned.filter((m) => m.reviewedAt != null),
    };
  }

  forget(accountId: string, target: ForgetTarget, alsoKept: string[]): ForgettingDone | null {
    const done = this.transaction((): ForgettingDone | null => {
      const scope = this.forgettingScope(accountId, target);
      if (!scope) return null;
      const plan = this.planOf(accountId, scope);
      const ticked = new Set(alsoKept);
      const gone = [...plan.facts, ...plan.kept.filter((m) => ticked.has(m.id))];
      const kept = plan.kept.filter((m) => !ticked.has(m.id));
      const passageIds = this.raw.query<{ id: number }, [string, string, string | null]>(`
        SELECT id FROM passages WHERE document_id IN (SELECT value FROM json_each(?1))
        UNION SELECT id FROM passages WHERE memory_id IN (SELECT value FROM json_each(?2))
        UNION SELECT id FROM passages WHERE container_id = ?3`).all(JSON.stringify(scope.documentIds), JSON.stringify(gone.map((m) => m.id)), scope.containerId)
        .map((r) => r.id);
      // Passages, their vectors and FTS rows, history and jobs all follow by cascade and trigger.
      if (gone.length) this.db.delete(t.memories).where(and(eq(t.memories.accountId, accountId), inArray(t.memories.id, gone.map((m) => m.id)))).run();
      if (kept.length) this.db.update(t.memories).set({ sourceDocumentId: null, sourcePosition: null }).where(inArray(t.memories.id, kept.map((m) => m.id))).run();
      if ('containerId' in target) this.deleteContainer(accountId, target.containerId);
      else this.deleteDocument(accountId, target.documentId);
      return { documents: plan.documents, passages: plan.passages, facts: gone.length, kept: kept.length, passageIds };
    });
    if (done) this.truncateWal();
    return done;
  }

  forgetFact(accountId: string, id: string): number[] | null {
    const passageIds = this.transaction(() => {
      if (!this.getMemory(accountId, id)) return null;
      const ids = this.db.select({ id: t.passages.id }).from(t.passages).where(eq(t.passages.memoryId, id)).all().map((r) => r.id);
      this.deleteMemory(accountId, id);
      return ids;
    });
    if (passageIds) this.truncateWal();
    return passageIds;
  }

  markFactReviewed(accountId: string, id: string, at: number): boolean {
    return this.db.update(t.memories).set({ reviewedAt: at }).where(and(eq(t.memories.accountId, accountId), eq(t.memories.id, id)))
      .returning({ id: t.memories.id }).all().length === 1;
  }

  describeDocuments(accountId: string, ids: string[], openingChars: number): Map<string, { bytes: number; opening: string }> {
    // A URL document's text is what it was read as: its passages.
    const rows = this.raw.query<{ id: string; bytes: number; opening: string }, [string, string, number]>(`
      SELECT d.id,
             coalesce(length(CAST(d.content AS BLOB)),
                      (SELECT sum(length(CAST(p.content AS BLOB))) FROM passages p WHERE p.document_id = d.id), 0) AS bytes,
             coalesce(substr(d.content, 1, ?3),
                      (SELECT substr(p.content, 1, ?3) FROM passages p WHERE p.document_id = d.id ORDER BY p.position LIMIT 1), '') AS opening
        FROM json_each(?2) ids JOIN documents d ON d.id = ids.value
       WHERE d.account_id = ?1`).all(accountId, JSON.stringify(ids), openingChars);
    return new Map(rows.map((r) => [r.id, { bytes: r.bytes, opening: r.opening }]));
  }

  // Import origins

  // Hand-written SQL: called once a line of an import, where drizzle's query building costs more than the query.
  getImportOrigin(accountId: string, source: string, kind: ImportedKind, exportedId: string): string | null {
    return this.raw.query<{ id: string }, [string, string, string, string]>(`
      SELECT coalesce(container_id, document_id, memory_id, rule_id) AS id FROM import_origins
       WHERE account_id = ? AND source = ? AND kind = ? AND exported_id = ?`).get(accountId, source, kind, exportedId)?.id ?? null;
  }

  insertImportOrigin(origin: ImportOrigin): void {
    this.raw.query(`INSERT INTO import_origins (account_id, source, kind, exported_id, ${ORIGIN_TARGET[origin.kind]}, imported_at) VALUES (?, ?, ?, ?, ?, ?)`)
      .run(origin.accountId, origin.source, origin.kind, origin.exportedId, origin.localId, origin.importedAt);
  }

  /** The documents a forgetting deletes, and the container when it is one; null when the account has no such target. */
  private forgettingScope(accountId: string, target: ForgetTarget): ForgettingScope | null {
    if ('documentId' in target) return this.getDocument(accountId, target.documentId) ? { documentIds: [target.documentId], containerId: null } : null;
    if (!this.getContainer(accountId, target.containerId)) return null;
    const ids = this.db.select({ id: t.documents.id }).from(t.documents)
      .where(and(eq(t.documents.accountId, accountId), eq(t.documents.containerId, target.containerId))).all().map((r) => r.id);
    return { documentIds: ids, containerId: target.containerId };
  }

  /**
   * Old frames of the WAL still hold what was deleted until it is checkpointed and truncated. Best
   * effort and without waiting: a reader in the middle of a snapshot makes it a no-op, and the
   * next forgetting (or a restart) tries again.
   */
  private truncateWal(): void {
    const wait = this.raw.query<{ timeout: number }, []>('PRAGMA busy_timeout').get()!.timeout;
    this.raw.run('PRAGMA busy_timeout = 0');
    try {
      this.raw.run('PRAGMA wal_checkpoint(TRUNCATE)');
    } catch {
      // Busy: see above.
    } finally {
      this.raw.run(`PRAGMA busy_timeout = ${wait}`);
    }
  }
}

/** The import_origins column that holds what each kind of exported thing became (its foreign key). */
const ORIGIN_TARGET = { container: 'container_id', document: 'document_id', fact: 'memory_id', rule: 'rule_id' } as const;

type VectorRow = { passageId: number; containerId: string; embedding: Uint8Array };

/** What a forgetting deletes: these documents, and the container when it is one. */
type ForgettingScope = { documentIds: string[]; containerId: string | null };

/** Rows of units, ordered by passage then unit, as one entry a passage. */
function groupVectors(rows: VectorRow[]): StoredVectors[] {
  const out: StoredVectors[] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last?.passageId === r.passageId) last.vectors.push(int8Vector(r.embedding));
    else out.push({ passageId: r.passageId, containerId: r.containerId, vectors: [int8Vector(r.embedding)] });
  }
  return out;
}

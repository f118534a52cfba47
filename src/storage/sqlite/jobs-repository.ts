/**
 * The learning queue, in drizzle throughout: a claim is one UPDATE … WHERE id IN (the oldest ready
 * jobs) … RETURNING, so two workers can never claim the same job.
 */
import { and, eq, inArray, lte, sql } from 'drizzle-orm';
import type { JobKind, JobRepository } from '../jobs';
import type { DocumentRepository } from '../documents';
import type { SqliteContext } from './context';
import { insertVectors } from './vectors';
import * as t from './schema';

const j = t.jobs;
const pending = inArray(j.state, ['queued', 'running']);

/** Queues a job in the caller's write (a document's or a fact's insert, a change of model). */
export function enqueue({ db }: SqliteContext, accountId: string | null, kind: JobKind, target: { documentId?: string; memoryId?: string }, now: number, rebuild = false): void {
  db.insert(j).values({
    accountId, kind, documentId: target.documentId ?? null, memoryId: target.memoryId ?? null, state: 'queued',
    attempts: 0, runAfter: now, createdAt: now, updatedAt: now, rebuild,
  }).run();
}

export function jobsRepository(ctx: SqliteContext, documents: Pick<DocumentRepository, 'getDocument'>): JobRepository {
  const { db, transaction } = ctx;

  function completeJob(job: { id: number }, now: number): void {
    db.update(j).set({ state: 'done', error: null, updatedAt: now }).where(eq(j.id, job.id)).run();
  }

  return {
    claimJobs(now, limit) {
      const ready = db.select({ id: j.id }).from(j).where(and(eq(j.state, 'queued'), lte(j.runAfter, now))).orderBy(j.runAfter, j.id).limit(limit);
      return db.update(j).set({ state: 'running', attempts: sql`${j.attempts} + 1`, updatedAt: now }).where(inArray(j.id, ready))
        .returning({ id: j.id, accountId: j.accountId, kind: j.kind, documentId: j.documentId, memoryId: j.memoryId, attempts: j.attempts, rebuild: j.rebuild })
        .all().sort((a, b) => a.id - b.id);
    },

    completeDocument: (job, passages, vectors, now) => transaction(() => {
      const doc = job.accountId && job.documentId ? documents.getDocument(job.accountId, job.documentId) : null;
      let ids: number[] = [];
      if (doc) {
        // Passages of an earlier, interrupted attempt are replaced, never doubled.
        db.delete(t.passages).where(eq(t.passages.documentId, doc.id)).run();
        if (passages.length) {
          ids = db.insert(t.passages).values(passages.map((p) => ({
            accountId: doc.accountId, containerId: doc.containerId, documentId: doc.id, ...p,
          }))).returning({ id: t.passages.id }).all().map((r) => r.id);
        }
        if (vectors) insertVectors(ctx, 'fast', ids.map((passageId, i) => ({ passageId, vectors: vectors[i]! })));
        // A rebuilt document (an import) was learned before, elsewhere: it keeps when that was.
        const times = job.rebuild ? { learnedAt: doc.learnedAt ?? now, updatedAt: doc.updatedAt } : { learnedAt: now, updatedAt: now };
        db.update(t.documents).set({ status: 'learned', error: null, ...times }).where(eq(t.documents.id, doc.id)).run();
      }
      completeJob(job, now);
      return ids;
    }),

    completeJob,

    failJob(job, error, retryAt, now) {
      transaction(() => {
        if (retryAt != null) {
          db.update(j).set({ state: 'queued', error, runAfter: retryAt, updatedAt: now }).where(eq(j.id, job.id)).run();
          return;
        }
        db.update(j).set({ state: 'failed', error, updatedAt: now }).where(eq(j.id, job.id)).run();
        if (job.documentId) {
          db.update(t.documents).set({ status: 'failed', error, updatedAt: now }).where(eq(t.documents.id, job.documentId)).run();
        }
      });
    },

    requeueRunningJobs: (now) => db.update(j).set({ state: 'queued', updatedAt: now }).where(eq(j.state, 'running')).returning({ id: j.id }).all().length,

    releaseJobs(jobs, now) {
      if (jobs.length === 0) return;
      db.update(j).set({ state: 'queued', attempts: sql`${j.attempts} - 1`, updatedAt: now })
        .where(and(inArray(j.id, jobs.map((job) => job.id)), eq(j.state, 'running'))).run();
    },

    hasPendingJob: (kind) => !!db.select({ id: j.id }).from(j).where(and(eq(j.kind, kind), pending)).limit(1).get(),

    countPendingJobs: () => db.select({ n: sql<number>`count(*)` }).from(j).where(pending).get()!.n,
  };
}

/**
 * The learning queue, in drizzle throughout: a claim is one UPDATE … WHERE id IN (the oldest ready
 * jobs) … RETURNING, so two workers can never claim the same job. One process owns a SQLite store,
 * so a lease ends only for a job its own learner left (it requeues those at start besides).
 */
import { and, eq, inArray, lte, or, sql } from 'drizzle-orm';
import { claimOrder, JOB_LEASE_MS, type JobLane, type JobRepository, LANE_KINDS } from '../jobs';
import type { BunSQLiteDatabase } from 'drizzle-orm/bun-sqlite';
import type { SqliteContext, Synchronous } from './context';
import * as t from './schema';

const j = t.jobs;
/** In the literals of the partial indexes' WHEREs (0025): with bound values SQLite would not read them. */
const pending = sql`${j.state} IN ('queued', 'running')`;
const failed = sql`${j.state} = 'failed'`;
/** The lane's jobs; every job when no lane is given. */
const inLane = (lane: JobLane | undefined) => lane && inArray(j.kind, LANE_KINDS[lane]);

/** The ready jobs a claim takes, in claim order: the index jobs_ready (0025) reads them in that order. */
export function readyJobs(db: BunSQLiteDatabase, now: number, limit: number, lane?: JobLane) {
  return db
    .select({ id: j.id })
    .from(j)
    .where(
      and(
        pending,
        or(and(eq(j.state, 'queued'), lte(j.runAfter, now)), and(eq(j.state, 'running'), lte(j.leaseUntil, now))),
        inLane(lane),
      ),
    )
    .orderBy(j.bulk, j.runAfter, j.id)
    .limit(limit);
}

export function jobsRepository({ db }: SqliteContext): Synchronous<JobRepository> {
  return {
    enqueue(job, at) {
      db.insert(j)
        .values({
          accountId: job.accountId,
          kind: job.kind,
          documentId: job.documentId ?? null,
          memoryId: job.memoryId ?? null,
          state: 'queued',
          attempts: 0,
          runAfter: at,
          createdAt: at,
          updatedAt: at,
          rebuild: job.rebuild ?? false,
          bulk: job.bulk ?? false,
        })
        .run();
    },

    claim(now, limit, leaseMs = JOB_LEASE_MS, lane) {
      const ready = readyJobs(db, now, limit, lane);
      return db
        .update(j)
        .set({ state: 'running', attempts: sql`${j.attempts} + 1`, updatedAt: now, leaseUntil: now + leaseMs })
        .where(inArray(j.id, ready))
        .returning({
          id: j.id,
          accountId: j.accountId,
          kind: j.kind,
          documentId: j.documentId,
          memoryId: j.memoryId,
          attempts: j.attempts,
          rebuild: j.rebuild,
          bulk: j.bulk,
        })
        .all()
        .sort(claimOrder);
    },

    renew(jobs, now, leaseMs = JOB_LEASE_MS) {
      if (jobs.length === 0) return [];
      // Still this claim's: running, and not claimed again since (a new claim counts an attempt).
      const held = or(...jobs.map((job) => and(eq(j.id, job.id), eq(j.attempts, job.attempts))));
      return db
        .update(j)
        .set({ leaseUntil: now + leaseMs })
        .where(and(eq(j.state, 'running'), held))
        .returning({ id: j.id })
        .all()
        .map((r) => r.id)
        .sort((a, b) => a - b);
    },

    complete(job, now) {
      db.update(j).set({ state: 'done', error: null, updatedAt: now }).where(eq(j.id, job.id)).run();
    },

    fail(job, error, retryAt, now) {
      const end = retryAt != null ? { state: 'queued' as const, runAfter: retryAt } : { state: 'failed' as const };
      db.update(j)
        .set({ ...end, error, updatedAt: now })
        .where(eq(j.id, job.id))
        .run();
    },

    requeueRunning: (now) =>
      db.update(j).set({ state: 'queued', updatedAt: now }).where(eq(j.state, 'running')).returning({ id: j.id }).all()
        .length,

    release(jobs, now) {
      if (jobs.length === 0) return;
      db.update(j)
        .set({ state: 'queued', attempts: sql`${j.attempts} - 1`, updatedAt: now })
        .where(
          and(
            inArray(
              j.id,
              jobs.map((job) => job.id),
            ),
            eq(j.state, 'running'),
          ),
        )
        .run();
    },

    hasPending: (kind) =>
      !!db
        .select({ id: j.id })
        .from(j)
        .where(and(eq(j.kind, kind), pending))
        .limit(1)
        .get(),

    countPending: (lane) =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(j)
        .where(and(pending, inLane(lane)))
        .get()!.n,

    countFailed: (lane) =>
      db
        .select({ n: sql<number>`count(*)` })
        .from(j)
        .where(and(failed, inLane(lane)))
        .get()!.n,
  };
}

/**
 * The learning queue, shared by every learner process: a claim locks the oldest ready jobs with
 * FOR UPDATE SKIP LOCKED (learners claiming at once pass over each other's rows instead of
 * waiting) and holds them under a lease; a running job whose lease ended is ready again.
 */
import { claimOrder, JOB_LEASE_MS, type JobLane, type JobRepository, LANE_KINDS, type LearningJob } from '../jobs';
import { numbers, type PostgresContext } from './context';

const job = (r: Record<string, unknown>) => numbers<LearningJob>(r, 'id');

export function jobsRepository({ sql }: PostgresContext): JobRepository {
  /** The lane's jobs; every job when no lane is given. */
  const inLane = (lane: JobLane | undefined) => (lane ? sql`kind = ANY(${LANE_KINDS[lane]}::text[])` : sql`true`);
  return {
    async enqueue(j, at) {
      await sql`
        INSERT INTO jobs (account_id, kind, document_id, memory_id, state, attempts, run_after, created_at, updated_at, rebuild, bulk)
        VALUES (${j.accountId}, ${j.kind}, ${j.documentId ?? null}, ${j.memoryId ?? null}, 'queued', 0, ${at}, ${at}, ${at}, ${j.rebuild ?? false}, ${j.bulk ?? false})`;
    },

    claim: async (now, limit, leaseMs = JOB_LEASE_MS, lane) =>
      (
        await sql`
      UPDATE jobs SET state = 'running', attempts = attempts + 1, updated_at = ${now}, lease_until = ${now + leaseMs}
       WHERE id IN (
         SELECT id FROM jobs
          WHERE state IN ('queued', 'running') AND CASE state WHEN 'queued' THEN run_after ELSE lease_until END <= ${now}
            AND ${inLane(lane)}
          ORDER BY bulk, run_after, id LIMIT ${limit}
            FOR UPDATE SKIP LOCKED)
      RETURNING id, account_id, kind, document_id, memory_id, attempts, rebuild, bulk`
      )
        .map(job)
        .sort(claimOrder),

    async renew(jobs, now, leaseMs = JOB_LEASE_MS) {
      if (jobs.length === 0) return [];
      // Still this claim's: running, and not claimed again since (a new claim counts an attempt).
      const rows = await sql`
        UPDATE jobs SET lease_until = ${now + leaseMs}
          FROM unnest(${jobs.map((j) => j.id)}::bigint[], ${jobs.map((j) => j.attempts)}::int[]) AS held(id, attempts)
         WHERE jobs.id = held.id AND jobs.attempts = held.attempts AND jobs.state = 'running'
        RETURNING jobs.id`;
      return rows.map((r: { id: string }) => Number(r.id)).sort((a: number, b: number) => a - b);
    },

    async complete(j, now) {
      await sql`UPDATE jobs SET state = 'done', error = NULL, updated_at = ${now} WHERE id = ${j.id}`;
    },

    async fail(j, error, retryAt, now) {
      if (retryAt != null)
        await sql`UPDATE jobs SET state = 'queued', run_after = ${retryAt}, error = ${error}, updated_at = ${now} WHERE id = ${j.id}`;
      else await sql`UPDATE jobs SET state = 'failed', error = ${error}, updated_at = ${now} WHERE id = ${j.id}`;
    },

    requeueRunning: async (now) =>
      (await sql`UPDATE jobs SET state = 'queued', updated_at = ${now} WHERE state = 'running'`).count,

    async release(jobs, now) {
      if (jobs.length === 0) return;
      await sql`UPDATE jobs SET state = 'queued', attempts = attempts - 1, updated_at = ${now}
                 WHERE id = ANY(${jobs.map((j) => j.id)}::bigint[]) AND state = 'running'`;
    },

    hasPending: async (kind) =>
      (await sql`SELECT 1 FROM jobs WHERE kind = ${kind} AND state IN ('queued', 'running') LIMIT 1`).length > 0,

    countPending: async (lane) =>
      Number((await sql`SELECT count(*) AS n FROM jobs WHERE state IN ('queued', 'running') AND ${inLane(lane)}`)[0].n),

    countFailed: async (lane) =>
      Number((await sql`SELECT count(*) AS n FROM jobs WHERE state = 'failed' AND ${inLane(lane)}`)[0].n),
  };
}

/** Keeping a claim on jobs while they are worked, for the runner and the fact lane alike. */
import type { Clock } from '../clock';
import type { LearningJob, Repositories } from '../storage/store';

/**
 * Renews the jobs' leases every third of a lease until the timer is cleared, so that a slow job (a
 * large page, a model's turn) is not taken by another learner meanwhile; a learner that dies
 * renews nothing, and its jobs are free once their leases end. A failed renewal is tried again at
 * the next tick: the lease still has two thirds to run.
 */
export function renewWhileWorking(store: Repositories, clock: Clock, jobs: LearningJob[], leaseMs: number): Timer {
  const timer = setInterval(() => void store.jobs.renew(jobs, clock.now(), leaseMs).catch(() => {}), leaseMs / 3);
  timer.unref();
  return timer;
}

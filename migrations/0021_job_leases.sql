-- A claimed job is held under a lease (JOB_LEASE_MS, src/storage/jobs.ts): a running job whose
-- lease has ended is ready to be claimed again. Jobs running when this migration runs were left
-- by a stopped server; the next start queues them again as before.
ALTER TABLE jobs ADD COLUMN lease_until INTEGER;

-- Facts after search, and imports behind what is added by hand (migrations/0023_fact_jobs.sql says why).
ALTER TABLE jobs ADD COLUMN bulk boolean NOT NULL DEFAULT false;
-- What a claim reads, in the order it reads it.
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs(bulk, run_after, id) WHERE state IN ('queued', 'running');
-- The facts that failed for good, counted by /healthz and the Memory page, without reading every done job.
CREATE INDEX jobs_failed ON jobs(kind) WHERE state = 'failed';

-- The jobs' indexes as PostgreSQL's 0006 has them. A claim reads the ready jobs in the order it takes
-- them (bulk, run_after, id): with the index on (state, run_after) it sorted every ready job before
-- taking a few, 0.1 s a claim with a million queued, as an archive's import leaves them. The failed
-- ones are counted for /healthz and the Memory page without reading every done job. The queries
-- name the states with these literals, so that SQLite knows it may read the partial indexes.
DROP INDEX jobs_ready;
CREATE INDEX jobs_ready ON jobs(bulk, run_after, id) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_failed ON jobs(kind) WHERE state = 'failed';

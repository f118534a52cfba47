-- What the contract promises per credential and per account, held for every process that shares
-- the store. The per-credential limiter's calls of the last minute, as the in-memory limiter keeps
-- them where one process serves the store: a call is counted, or refused, by take_call, which
-- holds the key while it counts (one statement, one round trip). Concurrent turns per account are
-- PostgreSQL's advisory locks, held by the turn's connection: a process that dies lets go of them
-- with its connections.
CREATE TABLE rate_calls (
  key text NOT NULL,
  at  bigint NOT NULL
);
CREATE INDEX rate_calls_key_at ON rate_calls (key, at);

-- Counts a call on `k` at `now` and returns true when fewer than `max_calls` were counted in the
-- `window_ms` before it; otherwise counts nothing and returns false. Calls out of the window go.
CREATE FUNCTION take_call(k text, now bigint, window_ms bigint, max_calls integer) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('engram_rate:' || k));
  DELETE FROM rate_calls WHERE key = k AND at <= now - window_ms;
  IF (SELECT count(*) FROM rate_calls WHERE key = k) >= max_calls THEN
    RETURN false;
  END IF;
  INSERT INTO rate_calls (key, at) VALUES (k, now);
  RETURN true;
END $$;

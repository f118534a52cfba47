-- What the contract promises per credential and per account, held for every process that shares
-- the store: each credential's calls counted per minute (the limiter weighs the minute before with
-- the one under way). Concurrent turns per account are PostgreSQL's advisory locks, held by the
-- turn's connection: a process that dies lets go of them with its connections.
CREATE TABLE rate_counts (
  key    text NOT NULL,
  minute bigint NOT NULL,
  calls  integer NOT NULL,
  PRIMARY KEY (key, minute)
);

-- Exposures beyond developer keys: an agent share (holds ask_agent over chosen containers) and a
-- workflow (holds workflow_invoke: an owner-written instruction run over chosen containers). Their
-- tokens look like `egx_<id>_<secret>`; only a SHA-256 hash is stored. They are not keys, so they
-- live apart from `credentials` and never appear in the key screens or the usage records.

CREATE TABLE exposures (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind         TEXT NOT NULL CHECK (kind IN ('agent_share', 'workflow')),
  name         TEXT NOT NULL,
  instruction  TEXT,
  secret_hash  TEXT NOT NULL,
  hint         TEXT NOT NULL,
  created_at   INTEGER NOT NULL,
  revoked_at   INTEGER,
  last_used_at INTEGER
);
CREATE INDEX exposures_account ON exposures(account_id, created_at);

CREATE TABLE exposure_containers (
  exposure_id  TEXT NOT NULL REFERENCES exposures(id) ON DELETE CASCADE,
  container_id TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  PRIMARY KEY (exposure_id, container_id)
);

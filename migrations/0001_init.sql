-- The first schema: accounts and their sessions, containers, documents with their passages and
-- full-text index, facts, credentials, standing rules, usage records and the learning queue.
-- Every row that belongs to a person carries account_id.

CREATE TABLE accounts (
  id            TEXT PRIMARY KEY,
  email         TEXT NOT NULL UNIQUE COLLATE NOCASE,
  password_hash TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);

CREATE TABLE sessions (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  secret_hash TEXT NOT NULL,
  created_at  INTEGER NOT NULL,
  expires_at  INTEGER NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);

CREATE TABLE containers (
  id          TEXT PRIMARY KEY,
  account_id  TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name        TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  UNIQUE (account_id, name)
);

CREATE TABLE documents (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  container_id TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  title        TEXT,
  content      TEXT,
  url          TEXT,
  custom_id    TEXT,
  metadata     TEXT,
  status       TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'learned', 'failed')),
  error        TEXT,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL,
  learned_at   INTEGER,
  -- custom_id idempotency is the database's job, not a read-then-insert (NULLs never collide).
  UNIQUE (container_id, custom_id)
);
CREATE INDEX documents_account_created ON documents(account_id, created_at DESC, id DESC);
CREATE INDEX documents_container_created ON documents(container_id, created_at DESC, id DESC);

CREATE TABLE memories (
  id           TEXT PRIMARY KEY,
  account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL for a static fact: the profile belongs to no container.
  container_id TEXT REFERENCES containers(id) ON DELETE CASCADE,
  content      TEXT NOT NULL,
  title        TEXT,
  static       INTEGER NOT NULL DEFAULT 0,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
);
CREATE INDEX memories_account_updated ON memories(account_id, static, updated_at DESC);

CREATE TABLE passages (
  -- AUTOINCREMENT: a passage id is never reused, so a vector cached under it cannot point at another passage.
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  container_id TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  document_id  TEXT REFERENCES documents(id) ON DELETE CASCADE,
  memory_id    TEXT REFERENCES memories(id) ON DELETE CASCADE,
  position     INTEGER NOT NULL,
  title        TEXT,
  content      TEXT NOT NULL
);
CREATE INDEX passages_container ON passages(container_id);
CREATE INDEX passages_document ON passages(document_id);
CREATE INDEX passages_memory ON passages(memory_id);

CREATE VIRTUAL TABLE passages_fts USING fts5(
  title, content, content = 'passages', content_rowid = 'id',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER passages_ai AFTER INSERT ON passages BEGIN
  INSERT INTO passages_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
CREATE TRIGGER passages_ad AFTER DELETE ON passages BEGIN
  INSERT INTO passages_fts(passages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
END;
CREATE TRIGGER passages_au AFTER UPDATE ON passages BEGIN
  INSERT INTO passages_fts(passages_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
  INSERT INTO passages_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;

CREATE TABLE credentials (
  id              TEXT PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind            TEXT NOT NULL CHECK (kind IN ('developer_key', 'consent_token')),
  name            TEXT NOT NULL,
  secret_hash     TEXT NOT NULL,
  hint            TEXT NOT NULL,
  level           TEXT NOT NULL CHECK (level IN ('read', 'suggest', 'manage')),
  all_containers  INTEGER NOT NULL DEFAULT 0,
  profile         INTEGER NOT NULL DEFAULT 0,
  expires_in_days INTEGER,
  expires_at      INTEGER,
  revoked_at      INTEGER,
  replaces        TEXT,
  created_at      INTEGER NOT NULL,
  last_used_at    INTEGER
);
CREATE INDEX credentials_account ON credentials(account_id);

CREATE TABLE credential_containers (
  credential_id TEXT NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  container_id  TEXT NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  PRIMARY KEY (credential_id, container_id)
);

CREATE TABLE rules (
  id            TEXT PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL: the rule holds for every credential of the account.
  credential_id TEXT REFERENCES credentials(id) ON DELETE CASCADE,
  text          TEXT NOT NULL,
  created_at    INTEGER NOT NULL
);
CREATE INDEX rules_account ON rules(account_id);

CREATE TABLE usage (
  id            INTEGER PRIMARY KEY,
  account_id    TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  credential_id TEXT NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  tool          TEXT NOT NULL,
  outcome       TEXT NOT NULL CHECK (outcome IN ('ok', 'refused', 'error')),
  status        INTEGER NOT NULL,
  at            INTEGER NOT NULL
);
CREATE INDEX usage_credential_at ON usage(credential_id, at);

CREATE TABLE jobs (
  id          INTEGER PRIMARY KEY,
  -- NULL for work of the whole server, such as re-embedding after a change of model.
  account_id  TEXT REFERENCES accounts(id) ON DELETE CASCADE,
  kind        TEXT NOT NULL,
  document_id TEXT REFERENCES documents(id) ON DELETE CASCADE,
  state       TEXT NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts    INTEGER NOT NULL DEFAULT 0,
  run_after   INTEGER NOT NULL,
  error       TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL
);
CREATE INDEX jobs_ready ON jobs(state, run_after);

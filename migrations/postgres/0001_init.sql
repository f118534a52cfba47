-- The PostgreSQL store: the same model as SQLite's migrations make (test/storage/schema-parity.test.ts
-- holds the two to it), in PostgreSQL's types. Times are milliseconds since the epoch (bigint).
-- Where SQLite orders rows by their rowid (the order they were stored), a `seq` identity column does.

CREATE TABLE accounts (
  id            text PRIMARY KEY,
  email         text NOT NULL,
  password_hash text NOT NULL,
  created_at    bigint NOT NULL
);
-- One account an email, compared without regard to case (SQLite: COLLATE NOCASE).
CREATE UNIQUE INDEX accounts_email ON accounts (lower(email));

CREATE TABLE sessions (
  id          text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  secret_hash text NOT NULL,
  created_at  bigint NOT NULL,
  expires_at  bigint NOT NULL
);
CREATE INDEX sessions_account ON sessions(account_id);

CREATE TABLE containers (
  id                  text PRIMARY KEY,
  account_id          text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  name                text NOT NULL,
  description         text NOT NULL DEFAULT '',
  created_at          bigint NOT NULL,
  updated_at          bigint NOT NULL,
  -- The name as names are compared (src/names.ts): unique per account.
  name_key            text NOT NULL,
  learns_into_profile boolean NOT NULL DEFAULT true,
  seq                 bigint GENERATED ALWAYS AS IDENTITY,
  UNIQUE (account_id, name)
);
CREATE UNIQUE INDEX containers_account_name_key ON containers(account_id, name_key);

CREATE TABLE credentials (
  id              text PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind            text NOT NULL CHECK (kind IN ('developer_key', 'consent_token')),
  name            text NOT NULL,
  secret_hash     text NOT NULL,
  hint            text NOT NULL,
  level           text NOT NULL CHECK (level IN ('read', 'suggest', 'manage')),
  all_containers  boolean NOT NULL DEFAULT false,
  profile         boolean NOT NULL DEFAULT false,
  expires_in_days integer,
  expires_at      bigint,
  revoked_at      bigint,
  replaces        text,
  created_at      bigint NOT NULL,
  last_used_at    bigint,
  client_id       text,
  audience        text
);
CREATE INDEX credentials_account ON credentials(account_id);
CREATE INDEX credentials_client ON credentials(account_id, client_id);

CREATE TABLE credential_containers (
  credential_id text NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  container_id  text NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  PRIMARY KEY (credential_id, container_id)
);

CREATE TABLE exposures (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  kind         text NOT NULL CHECK (kind IN ('agent_share', 'workflow')),
  name         text NOT NULL,
  instruction  text,
  secret_hash  text NOT NULL,
  hint         text NOT NULL,
  created_at   bigint NOT NULL,
  revoked_at   bigint,
  last_used_at bigint,
  expires_at   bigint
);
CREATE INDEX exposures_account ON exposures(account_id, created_at);

CREATE TABLE exposure_containers (
  exposure_id  text NOT NULL REFERENCES exposures(id) ON DELETE CASCADE,
  container_id text NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  PRIMARY KEY (exposure_id, container_id)
);

CREATE TABLE documents (
  id           text PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  container_id text NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  title        text,
  content      text,
  url          text,
  custom_id    text,
  -- JSON as the app sent it (json, not jsonb: its keys keep their order).
  metadata     json,
  status       text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'learned', 'failed')),
  error        text,
  created_at   bigint NOT NULL,
  updated_at   bigint NOT NULL,
  learned_at   bigint,
  seq          bigint GENERATED ALWAYS AS IDENTITY,
  -- custom_id idempotency is the database's job, not a read-then-insert (NULLs never collide).
  UNIQUE (container_id, custom_id)
);
CREATE INDEX documents_account_created ON documents(account_id, created_at DESC, seq DESC);
CREATE INDEX documents_container_created ON documents(container_id, created_at DESC, seq DESC);
CREATE INDEX documents_account_seq ON documents(account_id, seq);

CREATE TABLE memories (
  id                 text PRIMARY KEY,
  account_id         text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL for a static fact: the profile belongs to no container.
  container_id       text REFERENCES containers(id) ON DELETE CASCADE,
  content            text NOT NULL,
  title              text,
  static             boolean NOT NULL DEFAULT false,
  created_at         bigint NOT NULL,
  updated_at         bigint NOT NULL,
  source_document_id text REFERENCES documents(id) ON DELETE SET NULL,
  source_position    integer,
  reviewed_at        bigint,
  written_by         text,
  seq                bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX memories_account_updated ON memories(account_id, static, updated_at DESC);
CREATE INDEX memories_source ON memories(source_document_id);
CREATE INDEX memories_container ON memories(container_id);

CREATE TABLE memory_history (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  memory_id   text NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  content     text NOT NULL,
  replaced_at bigint NOT NULL
);
CREATE INDEX memory_history_memory ON memory_history(memory_id, id);

CREATE TABLE passages (
  -- An identity is never reused, so a vector cached under an id cannot point at another passage.
  id           bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  container_id text NOT NULL REFERENCES containers(id) ON DELETE CASCADE,
  document_id  text REFERENCES documents(id) ON DELETE CASCADE,
  memory_id    text REFERENCES memories(id) ON DELETE CASCADE,
  position     integer NOT NULL,
  title        text,
  content      text NOT NULL,
  -- The keyword index: English stemming, the title weighted B and the text D (ranked 0.5 and 1.0,
  -- as SQLite's BM25 weighs them).
  keywords     tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', coalesce(title, '')), 'B') || setweight(to_tsvector('english', content), 'D')
  ) STORED
);
CREATE INDEX passages_container ON passages(container_id);
CREATE INDEX passages_document ON passages(document_id);
CREATE INDEX passages_memory ON passages(memory_id);
CREATE INDEX passages_keywords ON passages USING gin (keywords);

CREATE TABLE passage_vectors (
  passage_id bigint NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
  tier       text NOT NULL CHECK (tier IN ('fast', 'strong')),
  unit       integer NOT NULL,
  embedding  bytea NOT NULL,
  PRIMARY KEY (passage_id, tier, unit)
);

CREATE TABLE rules (
  id            text PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  -- NULL: the rule holds for every credential of the account.
  credential_id text REFERENCES credentials(id) ON DELETE CASCADE,
  text          text NOT NULL,
  created_at    bigint NOT NULL,
  seq           bigint GENERATED ALWAYS AS IDENTITY
);
CREATE INDEX rules_account ON rules(account_id);

CREATE TABLE usage (
  id            bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id    text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  credential_id text NOT NULL REFERENCES credentials(id) ON DELETE CASCADE,
  tool          text NOT NULL,
  outcome       text NOT NULL CHECK (outcome IN ('ok', 'refused', 'error')),
  status        integer NOT NULL,
  at            bigint NOT NULL
);
CREATE INDEX usage_credential_at ON usage(credential_id, at);

CREATE TABLE jobs (
  id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  -- NULL for work of the whole server, such as re-embedding after a change of model.
  account_id  text REFERENCES accounts(id) ON DELETE CASCADE,
  kind        text NOT NULL,
  document_id text REFERENCES documents(id) ON DELETE CASCADE,
  state       text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed')),
  attempts    integer NOT NULL DEFAULT 0,
  run_after   bigint NOT NULL,
  error       text,
  created_at  bigint NOT NULL,
  updated_at  bigint NOT NULL,
  memory_id   text REFERENCES memories(id) ON DELETE CASCADE,
  rebuild     boolean NOT NULL DEFAULT false,
  -- Until when a running job's claim holds (JOB_LEASE_MS, src/storage/jobs.ts).
  lease_until bigint
);
-- What a claim reads: the jobs still to do, oldest first (done and failed jobs stay out of it).
CREATE INDEX jobs_ready ON jobs(run_after, id) WHERE state IN ('queued', 'running');
CREATE INDEX jobs_document ON jobs(document_id);
CREATE INDEX jobs_memory ON jobs(memory_id);

CREATE TABLE settings (
  key   text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE oauth_clients (
  client_id     text PRIMARY KEY,
  kind          text NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  name          text NOT NULL,
  redirect_uris json NOT NULL,
  metadata      json NOT NULL,
  created_at    bigint NOT NULL,
  last_used_at  bigint,
  -- A registration nobody ever authorized is deleted after this; NULL once an owner approved it.
  expires_at    bigint,
  fetched_at    bigint,
  fresh_until   bigint
);
CREATE INDEX oauth_clients_expires ON oauth_clients(expires_at) WHERE expires_at IS NOT NULL;

CREATE TABLE oauth_codes (
  id             text PRIMARY KEY,
  secret_hash    text NOT NULL,
  account_id     text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  client_id      text NOT NULL,
  redirect_uri   text NOT NULL,
  code_challenge text NOT NULL,
  resource       text NOT NULL,
  scope          text NOT NULL,
  container_ids  json NOT NULL,
  profile        boolean NOT NULL,
  created_at     bigint NOT NULL,
  expires_at     bigint NOT NULL,
  used_at        bigint,
  token_id       text REFERENCES credentials(id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);

CREATE TABLE idempotency_keys (
  account_id    text NOT NULL,
  credential_id text NOT NULL,
  key           text NOT NULL,
  digest        text NOT NULL,
  state         text NOT NULL CHECK (state IN ('pending', 'done', 'interrupted')),
  response      text,
  created_at    bigint NOT NULL,
  expires_at    bigint NOT NULL,
  PRIMARY KEY (account_id, credential_id, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

CREATE TABLE import_origins (
  account_id   text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  source       text NOT NULL,
  kind         text NOT NULL CHECK (kind IN ('container', 'document', 'fact', 'rule')),
  exported_id  text NOT NULL,
  container_id text REFERENCES containers(id) ON DELETE CASCADE,
  document_id  text REFERENCES documents(id) ON DELETE CASCADE,
  memory_id    text REFERENCES memories(id) ON DELETE CASCADE,
  rule_id      text REFERENCES rules(id) ON DELETE CASCADE,
  imported_at  bigint NOT NULL,
  PRIMARY KEY (account_id, source, kind, exported_id),
  CHECK (num_nonnulls(container_id, document_id, memory_id, rule_id) = 1)
);
CREATE INDEX import_origins_container ON import_origins(container_id) WHERE container_id IS NOT NULL;
CREATE INDEX import_origins_document ON import_origins(document_id) WHERE document_id IS NOT NULL;
CREATE INDEX import_origins_memory ON import_origins(memory_id) WHERE memory_id IS NOT NULL;
CREATE INDEX import_origins_rule ON import_origins(rule_id) WHERE rule_id IS NOT NULL;

CREATE TABLE access_log (
  id              bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  account_id      text NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  credential_id   text NOT NULL,
  credential_kind text NOT NULL CHECK (credential_kind IN ('key', 'consent', 'share')),
  client_id       text,
  operation       text NOT NULL,
  at              bigint NOT NULL,
  -- A JSON array of {action, kind, id, container?, position?}: ids only.
  items           json NOT NULL
);
CREATE INDEX access_log_at ON access_log(at);
CREATE INDEX access_log_client ON access_log(account_id, client_id, id) WHERE client_id IS NOT NULL;
CREATE INDEX access_log_credential ON access_log(account_id, credential_id, id);

-- The saved search indexes' token (VECTOR_SNAPSHOT_SETTING) is dropped by any change to the
-- stored vectors, as SQLite's migration 0017 and its inserts do: once a statement.
CREATE FUNCTION drop_vector_snapshot() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM settings WHERE key = 'vector_snapshot';
  RETURN NULL;
END $$;
CREATE TRIGGER passage_vectors_snapshot AFTER INSERT OR UPDATE OR DELETE ON passage_vectors
  FOR EACH STATEMENT EXECUTE FUNCTION drop_vector_snapshot();

-- The vector change feed: what each process's in-memory vector index follows. A statement that
-- stores or removes vectors (a passage's delete included, through its cascade) records each
-- passage and tier it touched, under its transaction; as that transaction commits, it takes the
-- next commit number, in commit order (one commit at a time takes one, under a lock held to its
-- end), and wakes the followers with pg_notify('engram_vectors', number). A follower reads the
-- commits after the last number it applied: none can appear below it later.
CREATE TABLE vector_commits (
  xid        xid8 PRIMARY KEY,
  -- Set as the transaction commits; a row without one is a transaction still open.
  commit_seq bigint UNIQUE
);
CREATE SEQUENCE vector_commit_seq AS bigint;

CREATE TABLE vector_changes (
  id         bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid        xid8 NOT NULL,
  passage_id bigint NOT NULL,
  tier       text NOT NULL,
  removed    boolean NOT NULL
);
CREATE INDEX vector_changes_xid ON vector_changes(xid, id);

CREATE FUNCTION record_vector_changes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO vector_changes (xid, passage_id, tier, removed)
      SELECT DISTINCT pg_current_xact_id(), passage_id, tier, false FROM stored;
  ELSE
    INSERT INTO vector_changes (xid, passage_id, tier, removed)
      SELECT DISTINCT pg_current_xact_id(), passage_id, tier, true FROM gone;
  END IF;
  IF FOUND THEN
    INSERT INTO vector_commits (xid) VALUES (pg_current_xact_id()) ON CONFLICT (xid) DO NOTHING;
  END IF;
  RETURN NULL;
END $$;
CREATE TRIGGER passage_vectors_stored AFTER INSERT ON passage_vectors
  REFERENCING NEW TABLE AS stored FOR EACH STATEMENT EXECUTE FUNCTION record_vector_changes();
CREATE TRIGGER passage_vectors_gone AFTER DELETE ON passage_vectors
  REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION record_vector_changes();

-- At commit (deferred to it), once a transaction: the lock orders commits, so a commit number is
-- visible only after every smaller one is.
CREATE FUNCTION number_vector_commit() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  n bigint;
BEGIN
  PERFORM pg_advisory_xact_lock(hashtext('engram_vector_commits'));
  n := nextval('vector_commit_seq');
  UPDATE vector_commits SET commit_seq = n WHERE xid = NEW.xid;
  PERFORM pg_notify('engram_vectors', n::text);
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER vector_commits_number AFTER INSERT ON vector_commits
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION number_vector_commit();

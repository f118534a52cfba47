-- Idempotency keys of writes (src/operations/idempotency.ts): per account and credential, the key a
-- client sent with a write, a digest of the request, and the first answer, kept 24 hours so that a
-- retry of the same write is answered from here instead of being carried out again.
-- `state`: pending while the first attempt runs, done once answered (`response` holds the answer's
-- JSON), interrupted when the server stopped while it ran (set at start: its outcome is unknown).

CREATE TABLE idempotency_keys (
  account_id    TEXT NOT NULL,
  credential_id TEXT NOT NULL,
  key           TEXT NOT NULL,
  digest        TEXT NOT NULL,
  state         TEXT NOT NULL CHECK (state IN ('pending', 'done', 'interrupted')),
  response      TEXT,
  created_at    INTEGER NOT NULL,
  expires_at    INTEGER NOT NULL,
  PRIMARY KEY (account_id, credential_id, key)
);

CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);

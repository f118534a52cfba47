-- What each credential read and wrote: one row a call made with a developer key, an app's consent
-- token or a share, naming by id (never by content) the containers, documents, facts and profile
-- entries the call returned, wrote or removed. Kept for a configurable number of days
-- (ENGRAM_ACCESS_LOG_DAYS), pruned in the background. Owner calls are not logged: the owner is
-- the subject. No reference to credentials: a revoked key's or a share's history stays readable.
CREATE TABLE access_log (
  id              INTEGER PRIMARY KEY,
  account_id      TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  credential_id   TEXT NOT NULL,
  credential_kind TEXT NOT NULL CHECK (credential_kind IN ('key', 'consent', 'share')),
  -- Consent tokens only: the app (OAuth client_id), so an app's page spans all its tokens.
  client_id       TEXT,
  operation       TEXT NOT NULL,
  at              INTEGER NOT NULL,
  -- A JSON array of {action, kind, id, container?, position?}: ids only.
  items           TEXT NOT NULL
);
CREATE INDEX access_log_credential ON access_log(account_id, credential_id, id);
CREATE INDEX access_log_client ON access_log(account_id, client_id, id) WHERE client_id IS NOT NULL;
CREATE INDEX access_log_at ON access_log(at);

-- OAuth for AI apps: registered apps, authorization codes, and consent tokens. A consent token is a
-- row of `credentials` (kind 'consent_token', level 'read') bound to the app that holds it and to
-- the resource it was issued for, so reach, the profile tick, expiry and revocation work as for keys.

ALTER TABLE credentials ADD COLUMN client_id TEXT;
ALTER TABLE credentials ADD COLUMN audience TEXT;
CREATE INDEX credentials_client ON credentials(account_id, client_id);

-- Apps known to the authorization server: registered through /oauth/register (RFC 7591), or a
-- client ID metadata document fetched from the https URL that is its client_id (cached here).
-- Not per account: an app registers before anyone signs in.
CREATE TABLE oauth_clients (
  client_id     TEXT PRIMARY KEY,
  kind          TEXT NOT NULL CHECK (kind IN ('registered', 'metadata_document')),
  name          TEXT NOT NULL,
  redirect_uris TEXT NOT NULL,            -- JSON array of strings
  metadata      TEXT NOT NULL,            -- JSON: what was registered, or the fetched document
  created_at    INTEGER NOT NULL,
  last_used_at  INTEGER,
  -- A registration nobody ever authorized is deleted after this; NULL once an owner approved it.
  expires_at    INTEGER,
  -- Metadata documents only: when it was fetched and until when it is used without fetching again.
  fetched_at    INTEGER,
  fresh_until   INTEGER
);
CREATE INDEX oauth_clients_expires ON oauth_clients(expires_at) WHERE expires_at IS NOT NULL;

-- Authorization codes: single use, minutes long, stored only as a SHA-256 hash of the code.
CREATE TABLE oauth_codes (
  id             TEXT PRIMARY KEY,
  secret_hash    TEXT NOT NULL,
  account_id     TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  client_id      TEXT NOT NULL,
  redirect_uri   TEXT NOT NULL,
  code_challenge TEXT NOT NULL,
  resource       TEXT NOT NULL,
  scope          TEXT NOT NULL,
  container_ids  TEXT NOT NULL,           -- JSON array: the containers ticked on the consent screen
  profile        INTEGER NOT NULL,
  created_at     INTEGER NOT NULL,
  expires_at     INTEGER NOT NULL,
  used_at        INTEGER,
  -- The consent token the code was exchanged for: revoked if the code is ever presented again.
  token_id       TEXT REFERENCES credentials(id) ON DELETE SET NULL
);
CREATE INDEX oauth_codes_expires ON oauth_codes(expires_at);

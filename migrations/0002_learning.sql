-- Learning: jobs that embed a fact's passage, and settings such as the embedding model in use.

ALTER TABLE jobs ADD COLUMN memory_id TEXT REFERENCES memories(id) ON DELETE CASCADE;

CREATE TABLE settings (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

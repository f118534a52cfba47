-- A fact's earlier wordings: when a turn merges a new fact into an old one (a static add with a
-- model, or a contradicting fact learned later), the old content is kept here, newest last.

CREATE TABLE memory_history (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  memory_id   TEXT NOT NULL REFERENCES memories(id) ON DELETE CASCADE,
  content     TEXT NOT NULL,
  replaced_at INTEGER NOT NULL
);
CREATE INDEX memory_history_memory ON memory_history(memory_id, id);

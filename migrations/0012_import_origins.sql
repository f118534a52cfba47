-- What `engram import` brought into an account: per exported thing (named by the exporting
-- account's id, `source`, and the thing's id in the export, `exported_id`), what it became here.
-- A second import of the same export, or of an overlapping one, skips what is listed. Exactly one
-- of the four target columns is set; deleting the target deletes the row (ON DELETE CASCADE), so
-- a forgotten thing leaves no trace here and a later import brings it again.
-- `source` is '' for files written before exports named their account; `exported_id` is a digest
-- of the line for lines without an id (see src/cli/transfer.ts).

CREATE TABLE import_origins (
  account_id   TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  source       TEXT NOT NULL,
  kind         TEXT NOT NULL CHECK (kind IN ('container', 'document', 'fact', 'rule')),
  exported_id  TEXT NOT NULL,
  container_id TEXT REFERENCES containers(id) ON DELETE CASCADE,
  document_id  TEXT REFERENCES documents(id) ON DELETE CASCADE,
  memory_id    TEXT REFERENCES memories(id) ON DELETE CASCADE,
  rule_id      TEXT REFERENCES rules(id) ON DELETE CASCADE,
  imported_at  INTEGER NOT NULL,
  PRIMARY KEY (account_id, source, kind, exported_id),
  CHECK ((container_id IS NOT NULL) + (document_id IS NOT NULL) + (memory_id IS NOT NULL) + (rule_id IS NOT NULL) = 1)
);

-- A delete of a target finds its row by these (partial: most rows leave three of them NULL).
CREATE INDEX import_origins_container ON import_origins(container_id) WHERE container_id IS NOT NULL;
CREATE INDEX import_origins_document ON import_origins(document_id) WHERE document_id IS NOT NULL;
CREATE INDEX import_origins_memory ON import_origins(memory_id) WHERE memory_id IS NOT NULL;
CREATE INDEX import_origins_rule ON import_origins(rule_id) WHERE rule_id IS NOT NULL;

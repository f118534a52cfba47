-- Where a learned fact came from: the document and the passage (its position) it was extracted
-- from. NULL for a fact saved with add_memory. Deleting the document leaves the fact, without source.

ALTER TABLE memories ADD COLUMN source_document_id TEXT REFERENCES documents(id) ON DELETE SET NULL;
ALTER TABLE memories ADD COLUMN source_position INTEGER;
CREATE INDEX memories_source ON memories(source_document_id);

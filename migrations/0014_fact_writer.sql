-- Which credential saved a fact with add_memory (a developer key's id), for the fact's page.
-- NULL for a fact the owner saved, one learned from a document (see source_document_id), or one imported.

ALTER TABLE memories ADD COLUMN written_by TEXT;

-- A search hit names its document's custom id, which a document's row keeps after its content: an
-- imported conversation of 20 KB spans several overflow pages that SQLite walks to reach it, about
-- three quarters of reading a search's candidates back at 100,000 passages. This index holds the
-- custom id beside the document's id, so the hits read it here (INDEXED BY, passages-repository.ts)
-- and never touch the document's row.
CREATE INDEX documents_custom_ids ON documents(id, custom_id);

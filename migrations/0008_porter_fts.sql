-- The stemmed keyword index (issue 17): FTS5 with the Porter stemmer over unicode61, so that "run"
-- finds "running" and "city" finds "cities". It replaces passages_fts, which keyword search keeps
-- using until this index holds every passage. src/storage/sqlite/fts-rebuild.ts fills it, at once
-- inside this migration when the store is small, otherwise in short batches in the background;
-- then, in one transaction, it drops the old index and its triggers and takes the old name.

CREATE VIRTUAL TABLE passages_stem_fts USING fts5(
  title, content, content = 'passages', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);

-- Where the rebuild stands: the new index holds exactly the passages with id <= done or id > upto.
-- Those up to `upto` existed before this migration and are copied in id order, moving `done`.
CREATE TABLE keyword_index_rebuild (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  done INTEGER NOT NULL,
  upto INTEGER NOT NULL
);
INSERT INTO keyword_index_rebuild (id, done, upto) SELECT 1, 0, coalesce(max(id), 0) FROM passages;

-- Meanwhile writes reach the new index only for passages it holds: the rest it gets from the copy,
-- and an FTS5 'delete' of a row an external-content index does not hold would corrupt it.
CREATE TRIGGER passages_stem_ai AFTER INSERT ON passages
  WHEN new.id <= (SELECT done FROM keyword_index_rebuild) OR new.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;
CREATE TRIGGER passages_stem_ad AFTER DELETE ON passages
  WHEN old.id <= (SELECT done FROM keyword_index_rebuild) OR old.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(passages_stem_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
END;
CREATE TRIGGER passages_stem_au AFTER UPDATE ON passages
  WHEN old.id <= (SELECT done FROM keyword_index_rebuild) OR old.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(passages_stem_fts, rowid, title, content) VALUES ('delete', old.id, old.title, old.content);
  INSERT INTO passages_stem_fts(rowid, title, content) VALUES (new.id, new.title, new.content);
END;

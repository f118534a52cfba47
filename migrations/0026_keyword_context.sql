-- The exchange in the keyword index (issue 39): a chat turn is found by the words of the turns
-- beside it too (the reply that answers it, the question it answers). `context` holds the
-- neighbouring turns' own words, written by learning (src/learning/exchange.ts); it is derived,
-- never exported, and NULL for every passage that is not a turn and for the rows of a store from
-- before this migration until their documents are learned again.
ALTER TABLE passages ADD COLUMN context TEXT;

-- The keyword index gains it as a third column (weighed below a word of the passage's own by
-- keyword search). FTS5 cannot add a column: the index is made again beside the old one and
-- filled as 0008 filled it (src/storage/sqlite/fts-rebuild.ts: at once for a small store, in the
-- background for a larger one, keyword search reading the old index meanwhile). A rebuild that
-- 0008 left under way starts over here, into the new index.
DROP TRIGGER IF EXISTS passages_stem_ai;
DROP TRIGGER IF EXISTS passages_stem_ad;
DROP TRIGGER IF EXISTS passages_stem_au;
DROP TABLE IF EXISTS passages_stem_fts;
DROP TABLE IF EXISTS keyword_index_rebuild;

CREATE VIRTUAL TABLE passages_stem_fts USING fts5(
  title, content, context, content = 'passages', content_rowid = 'id',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
-- Forgetting leaves no word behind (0013).
INSERT INTO passages_stem_fts(passages_stem_fts, rank) VALUES ('secure-delete', 1);

CREATE TABLE keyword_index_rebuild (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  done INTEGER NOT NULL,
  upto INTEGER NOT NULL
);
INSERT INTO keyword_index_rebuild (id, done, upto) SELECT 1, 0, coalesce(max(id), 0) FROM passages;

CREATE TRIGGER passages_stem_ai AFTER INSERT ON passages
  WHEN new.id <= (SELECT done FROM keyword_index_rebuild) OR new.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(rowid, title, content, context) VALUES (new.id, new.title, new.content, new.context);
END;
CREATE TRIGGER passages_stem_ad AFTER DELETE ON passages
  WHEN old.id <= (SELECT done FROM keyword_index_rebuild) OR old.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(passages_stem_fts, rowid, title, content, context) VALUES ('delete', old.id, old.title, old.content, old.context);
END;
CREATE TRIGGER passages_stem_au AFTER UPDATE ON passages
  WHEN old.id <= (SELECT done FROM keyword_index_rebuild) OR old.id > (SELECT upto FROM keyword_index_rebuild)
BEGIN
  INSERT INTO passages_stem_fts(passages_stem_fts, rowid, title, content, context) VALUES ('delete', old.id, old.title, old.content, old.context);
  INSERT INTO passages_stem_fts(rowid, title, content, context) VALUES (new.id, new.title, new.content, new.context);
END;

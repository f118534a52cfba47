-- Forgetting must leave no word behind in the keyword index. A plain FTS5 delete only adds a
-- tombstone and keeps the words in older index segments until they are merged; with the index's
-- 'secure-delete' option a delete removes them at once (and PRAGMA secure_delete zeroes the freed
-- pages). The option is stored in the index's own config table, so it stays with it. The stemmed
-- index still being built beside this one (0008) gets it in code (migrations.ts).
INSERT INTO passages_fts(passages_fts, rank) VALUES ('secure-delete', 1);

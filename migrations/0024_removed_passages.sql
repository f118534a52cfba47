-- The ids of deleted passages, whoever deleted them: the running server, or `engram import` beside
-- it replacing a changed note from its own process. The server's in-memory search indexes drop
-- each passage named here and then delete the row (src/search/removal-follower.ts); otherwise an
-- index would keep a passage the store no longer holds, and would not be saved at the next stop.
-- AUTOINCREMENT: a sequence number is never used twice, even once every row has been deleted.
CREATE TABLE removed_passages (
  seq        INTEGER PRIMARY KEY AUTOINCREMENT,
  passage_id INTEGER NOT NULL
);
CREATE TRIGGER passages_removed_ad AFTER DELETE ON passages
  BEGIN INSERT INTO removed_passages (passage_id) VALUES (old.id); END;

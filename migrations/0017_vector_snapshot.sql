-- The search indexes are saved at a clean stop and read back at the next start instead of being
-- rebuilt from passage_vectors (src/search/search-engine.ts). The saved copy is trusted only while
-- the token its stop wrote here stands. Removing or changing stored vectors, by any program (a
-- command, a cascade from a forgotten passage, a change of model at start), drops the token, and
-- the next start rebuilds. Inserts have no trigger: a trigger runs for every row, and one here cost
-- 3-5 % of learning's throughput; vectors are inserted only by a running server's learning, whose
-- index hears of each, and a stop saves nothing unless its indexes hold as many vectors as the store.
CREATE TRIGGER passage_vectors_snapshot_au AFTER UPDATE ON passage_vectors
  WHEN EXISTS (SELECT 1 FROM settings WHERE key = 'vector_snapshot')
  BEGIN DELETE FROM settings WHERE key = 'vector_snapshot'; END;
CREATE TRIGGER passage_vectors_snapshot_ad AFTER DELETE ON passage_vectors
  WHEN EXISTS (SELECT 1 FROM settings WHERE key = 'vector_snapshot')
  BEGIN DELETE FROM settings WHERE key = 'vector_snapshot'; END;

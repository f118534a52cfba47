-- The search indexes are saved at a clean stop and read back at the next start instead of being
-- rebuilt from passage_vectors (src/search/search-engine.ts). The saved copy is trusted only while
-- the token its stop wrote here stands: any change to the stored vectors, by any program (a server,
-- a command, a cascade from a deleted passage), drops the token, and the next start rebuilds.
CREATE TRIGGER passage_vectors_snapshot_ai AFTER INSERT ON passage_vectors
  WHEN EXISTS (SELECT 1 FROM settings WHERE key = 'vector_snapshot')
  BEGIN DELETE FROM settings WHERE key = 'vector_snapshot'; END;
CREATE TRIGGER passage_vectors_snapshot_au AFTER UPDATE ON passage_vectors
  WHEN EXISTS (SELECT 1 FROM settings WHERE key = 'vector_snapshot')
  BEGIN DELETE FROM settings WHERE key = 'vector_snapshot'; END;
CREATE TRIGGER passage_vectors_snapshot_ad AFTER DELETE ON passage_vectors
  WHEN EXISTS (SELECT 1 FROM settings WHERE key = 'vector_snapshot')
  BEGIN DELETE FROM settings WHERE key = 'vector_snapshot'; END;

-- Passage vectors by tier and unit, replacing the one-vector-a-passage sqlite-vec table. A passage
-- is embedded whole (unit 0) and sentence group by sentence group (units 1…), and search scores it
-- by its best unit. Tier `fast` is the built-in static model that makes a document searchable at
-- once; `strong` the transformer that refines it in the background. Vectors are int8, one byte a
-- dimension, scaled to the vector's largest value (cosine does not depend on the scale).

CREATE TABLE passage_vectors (
  passage_id INTEGER NOT NULL REFERENCES passages(id) ON DELETE CASCADE,
  tier       TEXT NOT NULL CHECK (tier IN ('fast', 'strong')),
  unit       INTEGER NOT NULL,
  embedding  BLOB NOT NULL,
  PRIMARY KEY (passage_id, tier, unit)
) WITHOUT ROWID;

-- The old table's vectors were of whole passages only: every passage is embedded again, by units,
-- in the background (the recorded model is forgotten, so the next start queues the re-embedding).
DROP TRIGGER IF EXISTS passages_vec_ad;
DROP TABLE IF EXISTS vec_passages;
DELETE FROM settings WHERE key = 'embedding_model';

-- A learning job that rebuilds a document learned elsewhere (one brought by `engram import`): its
-- passages and vectors are made again, but no facts are extracted, since the document's facts came
-- with it, and the document keeps the times it had. 0 for every other job: learned in full.

ALTER TABLE jobs ADD COLUMN rebuild INTEGER NOT NULL DEFAULT 0;

-- Facts after search: a document is learned (searchable) once indexed, and its facts are extracted
-- by a job of their own, `extract_facts`, queued in the same commit that marks it learned
-- (src/learning/fact-lane.ts). A language model takes seconds to minutes a document, so those jobs
-- are claimed apart from the jobs that index.
-- `bulk`: a job queued by an import, claimed after every ready job of what was added by hand, so a
-- note added during a large import is searchable, and its facts known, first. 0 for jobs before this.
ALTER TABLE jobs ADD COLUMN bulk INTEGER NOT NULL DEFAULT 0;

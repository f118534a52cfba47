-- Keyword search reads a narrow table of its own: each passage's words (the tsvector), with only
-- the account and container it is filtered by. ts_rank reads the tsvector of every passage that
-- matches any of a query's words (about 1,900 of 100,000 for a 4-word question); in `passages`
-- each of those rows also carries its text, so the same matches spread over about twice the pages.
-- A trigger keeps it in step with `passages` on every path that writes one (a document's passages,
-- a fact's passage and its edit); a passage's deletion takes its row with it.
CREATE TABLE passage_keywords (
  passage_id   bigint PRIMARY KEY REFERENCES passages(id) ON DELETE CASCADE,
  account_id   text NOT NULL,
  container_id text NOT NULL,
  -- English stemming, the title weighted B and the text D (ranked 0.5 and 1.0, as SQLite's BM25
  -- weighs them).
  keywords     tsvector NOT NULL
);

CREATE FUNCTION passage_keywords_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO passage_keywords (passage_id, account_id, container_id, keywords)
  VALUES (
    NEW.id, NEW.account_id, NEW.container_id,
    setweight(to_tsvector('english', coalesce(NEW.title, '')), 'B') || setweight(to_tsvector('english', NEW.content), 'D')
  )
  ON CONFLICT (passage_id) DO UPDATE
    SET account_id = EXCLUDED.account_id, container_id = EXCLUDED.container_id, keywords = EXCLUDED.keywords;
  RETURN NULL;
END
$$;
CREATE TRIGGER passage_keywords_write AFTER INSERT OR UPDATE OF account_id, container_id, title, content ON passages
  FOR EACH ROW EXECUTE FUNCTION passage_keywords_write();

INSERT INTO passage_keywords (passage_id, account_id, container_id, keywords)
  SELECT id, account_id, container_id, keywords FROM passages;
CREATE INDEX passage_keywords_keywords ON passage_keywords USING gin (keywords);
CREATE INDEX passage_keywords_container ON passage_keywords (container_id);

DROP INDEX passages_keywords;
ALTER TABLE passages DROP COLUMN keywords;

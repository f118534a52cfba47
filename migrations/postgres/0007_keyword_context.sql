-- The exchange in the keyword index (issue 39; migrations/0026_keyword_context.sql says why):
-- `context` holds a chat turn's neighbouring turns' own words, written by learning, and joins the
-- passage's tsvector labelled C, which keyword search ranks below the text (D) and the title (B).
ALTER TABLE passages ADD COLUMN context text;

CREATE OR REPLACE FUNCTION passage_keywords_write() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO passage_keywords (passage_id, account_id, container_id, keywords)
  VALUES (
    NEW.id, NEW.account_id, NEW.container_id,
    setweight(to_tsvector('english', coalesce(NEW.title, '')), 'B') || setweight(to_tsvector('english', NEW.content), 'D')
      || setweight(to_tsvector('english', coalesce(NEW.context, '')), 'C')
  )
  ON CONFLICT (passage_id) DO UPDATE
    SET account_id = EXCLUDED.account_id, container_id = EXCLUDED.container_id, keywords = EXCLUDED.keywords;
  RETURN NULL;
END
$$;
DROP TRIGGER passage_keywords_write ON passages;
CREATE TRIGGER passage_keywords_write AFTER INSERT OR UPDATE OF account_id, container_id, title, content, context ON passages
  FOR EACH ROW EXECUTE FUNCTION passage_keywords_write();

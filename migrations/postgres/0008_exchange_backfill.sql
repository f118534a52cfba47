-- The exchange's backfill (src/learning/exchange-backfill.ts): a store that holds documents from
-- before migration 0026 gets every chat turn's context in the background after start, written as
-- learning the turns in order would have written it. This setting is its progress mark: '' to
-- start, then where it stands, then 'done'. A store with no document has nothing to fill.
INSERT INTO settings (key, value)
  SELECT 'exchange_backfill', CASE WHEN EXISTS (SELECT 1 FROM documents) THEN '' ELSE 'done' END;

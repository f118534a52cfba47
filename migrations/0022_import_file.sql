-- The name of the file each import came from, so that a fact's page says which import brought it
-- (the format is `source`, or an Engram export's when `source` is an account). NULL for what was
-- imported before this was recorded.
ALTER TABLE import_origins ADD COLUMN file TEXT;

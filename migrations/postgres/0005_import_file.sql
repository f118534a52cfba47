-- The name of the file each import came from (migrations/0022_import_file.sql says why).
ALTER TABLE import_origins ADD COLUMN file text;

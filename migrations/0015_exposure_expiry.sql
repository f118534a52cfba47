-- Shares and workflows expire like keys: the moment they stop working, or NULL for never.
ALTER TABLE exposures ADD COLUMN expires_at INTEGER;

-- When the owner last edited or confirmed a fact (NULL: never). A learned fact the owner reviewed
-- is theirs: deleting the document it came from keeps it (its source cleared) unless the owner
-- ticks it too; an unreviewed one is forgotten with its document.

ALTER TABLE memories ADD COLUMN reviewed_at INTEGER;

-- The vector change feed is pruned (docs/decisions.md, "The vector feed's retention"): its oldest
-- commits, and their changes, are deleted, keeping the newest few. The floor is the number of the
-- last commit deleted: a follower whose last applied commit is below it has missed changes and
-- reads its indexes again from the store. Raised and pruned in one transaction, and read in the
-- same statement as the changes, so a follower sees the rows or the floor that replaced them.
-- The feed's id, made once with the database, stamps the indexes a replica saves with the commit
-- they hold: a copy saved from another database is not read as this one's.
CREATE TABLE vector_feed_floor (
  one     boolean PRIMARY KEY DEFAULT true CHECK (one),
  floor   bigint NOT NULL,
  feed_id text NOT NULL DEFAULT gen_random_uuid()::text
);
INSERT INTO vector_feed_floor (floor) VALUES (0);

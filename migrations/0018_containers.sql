-- Container names are unique as people read them, not byte for byte: "Notes", "NOTES", "Ｎｏｔｅｓ"
-- and "Notes" with an invisible filler are one name (src/names.ts, nameKey). SQLite cannot
-- normalize Unicode, so the compared form is a column the store writes with the name. The
-- migration's step in code fills it, cleans names stored before the rule (blanks made spaces,
-- invisible characters dropped), renames a later look-alike "Notes (2)", and then makes
-- (account_id, name_key) unique.
ALTER TABLE containers ADD COLUMN name_key TEXT NOT NULL DEFAULT '';

-- Whether the learning turn may promote the facts it draws from this container's documents to the
-- profile, which every key with the profile tick reads whatever its reach. On for every container
-- already there, as the contract has it; the owner turns it off for a container whose facts must
-- stay inside it.
ALTER TABLE containers ADD COLUMN learns_into_profile INTEGER NOT NULL DEFAULT 1;

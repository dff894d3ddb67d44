-- A link put in a collection is marked in the change feed by the code that puts it there
-- (src/shelf/marks.ts, markMemberships), in the same transaction, and no longer by triggers:
-- a trigger on inserts cost ~3 µs a row here even with nothing to do (SQLite runs its program
-- for every row), a third of the time an import of 100,000 links spent writing them and their
-- 275,000 memberships, where one statement per transaction marks them all. A new link is
-- always put in a collection (the Inbox when no other), so marking its membership marks it.
-- Taking a link out of a collection is still marked by `changes_membership_delete`: that also
-- happens through foreign-key cascades, which no code of ours sees.
DROP TRIGGER `changes_membership_insert`;
--> statement-breakpoint
DROP TRIGGER `changes_link_insert`;

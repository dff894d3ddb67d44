-- Search gets an index per user (made at run time, see src/search/index-text.ts): BM25's
-- statistics (how many links hold a word, how long fields are on average) then come from the
-- asker's links alone. The shared index goes; every link is marked, and the first server started
-- on the upgraded database indexes them again into their owners' indexes, in the background.
DROP TABLE `link_search`;
--> statement-breakpoint
INSERT OR IGNORE INTO `link_search_pending` (`link_id`) SELECT `id` FROM `links`;
